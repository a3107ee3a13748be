package dev.tributary.service.stateful;

import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The record processor of a stateful pipeline: the stateless steps (parse, Kafka metadata
 * columns, transforms, projection; failures to quarantine) produce the row the sink of a
 * stateless pipeline would get; that row then goes through the watermark filter (late rows to the
 * late-events table), deduplication and the windowed aggregation, whose state lives in the
 * checkpoint's versioned state stores ({@code state/dedup}, {@code state/aggregate}).
 */
public final class StatefulProcessor implements RecordProcessor {
  private final String pipelineId;
  private final JsonRecordParser parser;
  private final CompiledTransforms transforms;
  private final int[] projection;
  private final int parsedWidth;
  private final StatefulQuery query;
  private long batchId;
  private Instant batchStartedAt;

  /**
   * @param parser the record parser and {@code transforms} the compiled transforms: the stateless
   *     steps, whose output schema must be the plan's input schema
   * @param checkpointStore the store rooted at the pipeline's checkpoint; not closed by this processor
   * @param localDir a directory this processor owns for the state stores' working copies
   */
  public StatefulProcessor(String pipelineId, JsonRecordParser parser, CompiledTransforms transforms,
      StatefulPlan plan, ObjectStore checkpointStore, Path localDir) {
    this.pipelineId = pipelineId;
    this.parser = parser;
    this.transforms = transforms;
    this.parsedWidth = parser.schema().size();
    StatelessProcessor stateless = new StatelessProcessor(pipelineId, parser, transforms);
    if (!stateless.outputSchema().equals(plan.inputSchema())) {
      throw new IllegalArgumentException("pipeline " + pipelineId + ": the stateful plan was compiled for "
          + plan.inputSchema().fieldNames() + " but the transforms produce " + stateless.outputSchema().fieldNames());
    }
    this.projection = projection(transforms, parsedWidth);
    this.query = new StatefulQuery(plan, checkpointStore, localDir);
  }

  /** The order StatelessProcessor puts columns in: schema and derived columns, then the Kafka columns. */
  private static int[] projection(CompiledTransforms transforms, int parsedWidth) {
    int total = transforms.outputSchema().size();
    int kafka = StatelessProcessor.KAFKA_COLUMNS.size();
    int[] out = new int[total];
    int n = 0;
    for (int i = 0; i < total; i++) {
      if (i < parsedWidth || i >= parsedWidth + kafka) {
        out[n++] = i;
      }
    }
    for (int i = parsedWidth; i < parsedWidth + kafka; i++) {
      out[n++] = i;
    }
    return out;
  }

  @Override
  public void beginBatch(BatchContext batch) throws IOException {
    this.batchId = batch.batchId();
    this.batchStartedAt = batch.batchStartedAt();
    query.begin(batch.batchId(), batch.watermarkMicros());
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs) throws Exception {
    outputs.countInput();
    byte[] value = record.value();
    ParseResult result = value == null ? ParseResult.failure("record value is null (a tombstone)") : parser.parse(value);
    if (result instanceof ParseResult.Failure failure) {
      outputs.quarantine(QuarantineRows.row(record, failure.error(), pipelineId, batchId, batchStartedAt));
      return;
    }
    Object[] parsed = ((ParseResult.Success) result).row();
    Object[] row = new Object[parsedWidth + StatelessProcessor.KAFKA_COLUMNS.size()];
    System.arraycopy(parsed, 0, row, 0, parsedWidth);
    row[parsedWidth] = record.topic();
    row[parsedWidth + 1] = record.partition();
    row[parsedWidth + 2] = record.offset();
    row[parsedWidth + 3] = Instant.ofEpochMilli(record.timestamp());
    Object[] transformed;
    try {
      transformed = transforms.apply(row);
    } catch (RuntimeException e) {
      outputs.quarantine(QuarantineRows.row(record, "transform failed: " + e.getMessage(), pipelineId, batchId,
          batchStartedAt));
      return;
    }
    if (transformed == null) {
      outputs.countFiltered();
      return;
    }
    Object[] out = new Object[projection.length];
    for (int i = 0; i < projection.length; i++) {
      out[i] = transformed[projection[i]];
    }
    query.accept(out, new OutputsEmitter(outputs));
  }

  @Override
  public void endBatch(BatchOutputs outputs) throws Exception {
    query.end(new OutputsEmitter(outputs));
  }

  @Override
  public OptionalLong nextWatermarkMicros() {
    return query.nextWatermark();
  }

  @Override
  public void commit(long batchId) throws IOException {
    query.commit(batchId);
  }

  @Override
  public boolean wantsNoDataBatch() {
    return query.wantsNoDataBatch();
  }

  @Override
  public Map<String, Long> stateMetrics() {
    return query.metrics();
  }

  @Override
  public void close() {
    query.close();
  }

  private record OutputsEmitter(BatchOutputs outputs) implements Emitter {
    @Override
    public void output(Object[] row) throws IOException {
      outputs.output(row);
    }

    @Override
    public void late(Object[] row) throws IOException {
      outputs.late(row);
    }

    @Override
    public void filtered() {
      outputs.countFiltered();
    }
  }
}
