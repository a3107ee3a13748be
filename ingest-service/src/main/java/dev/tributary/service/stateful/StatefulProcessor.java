package dev.tributary.service.stateful;

import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.RowCheck;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.parse.DecodeAhead;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.stream.SourceRow;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The record processor of a stateful pipeline: the stateless steps (parse, Kafka metadata columns,
 * transforms, projection, then the joins if any; failures to quarantine) produce the rows the sink
 * of a stateless pipeline would get (none, one or several per record with joins, whose dimension
 * versions each batch records and a replay pins); each row then goes through the watermark node,
 * deduplication and the windowed or running aggregation (each dropping its own late rows, to the
 * late-events table with {@link LateEvents}' columns), whose state lives in the checkpoint's
 * versioned state stores ({@code state/dedup}, {@code state/aggregate}).
 *
 * <p>Kafka records are decoded a chunk ahead on a worker thread ({@link DecodeAhead}); every later
 * step runs on the caller's thread in read order, so the operators see exactly the sequence they
 * would see decoding record by record. A batch's last chunk is applied in {@link #endBatch}, and a
 * table row first applies the records read before it.
 */
public final class StatefulProcessor implements RecordProcessor {
  /** The stateless steps; null for a processor over exchange records ({@link #forExchange}). */
  private final StatelessProcessor stateless;

  /** Records decoded together on the worker thread. */
  static final int DECODE_CHUNK = 1024;

  /** Decodes Kafka records ahead of the operators; created with the first batch, else null. */
  private DecodeAhead<ConsumerRecord<byte[], byte[]>, ParseResult> decodeAhead;

  /**
   * Stage 2 of a stateful group-mode pipeline: decodes the repartition topic's records; else null.
   */
  private final ExchangeRecords exchange;

  /**
   * Stage 2 with a watermark: how far every source partition has been read, which its watermark
   * follows (rows do not move it); else null.
   */
  private SourceClock sourceClock;

  /** keyed-by: checked on every record's row before it enters state; null without. */
  private RowCheck rowCheck;

  private final String pipelineId;
  private long batchId;
  private Instant batchStartedAt;
  private final StatefulQuery query;
  private final StatefulPlan plan;
  private final CheckedRows checkedRows;
  private OutputsEmitter emitter;
  private final Map<TopicPartition, Integer> partitionIndexes = new HashMap<>();
  private String lastTopic;
  private int lastPartition = -1;
  private int lastIndex;

  /** The partition index of a table source's rows: -1 until the first. */
  private int tableIndex = -1;

  /**
   * The key of a table source in {@link #partitionIndexes}: no Kafka topic can be named so (a
   * space).
   */
  private static final TopicPartition TABLE_SOURCE = new TopicPartition("table source", 0);

  /**
   * @param parser the record parser and {@code transforms} the compiled transforms: the stateless
   *     steps, whose output schema must be the plan's input schema
   * @param checkpointStore the store rooted at the pipeline's checkpoint; not closed by this
   *     processor
   * @param localDir a directory this processor owns for the state stores' working copies
   */
  public StatefulProcessor(
      String pipelineId,
      RecordDecoder parser,
      CompiledTransforms transforms,
      StatefulPlan plan,
      ObjectStore checkpointStore,
      Path localDir) {
    this(
        pipelineId,
        new StatelessProcessor(pipelineId, parser, transforms),
        plan,
        checkpointStore,
        localDir);
  }

  /**
   * A processor whose rows come from {@code stateless}: its transformed rows, joined with its
   * dimension tables if it has joins (then {@link #planBatch} records their versions, and a
   * replayed batch joins with them again). Closes {@code stateless}, and so its joins, when closed.
   *
   * @param stateless the stateless steps, whose output schema must be the plan's input schema
   */
  public StatefulProcessor(
      String pipelineId,
      StatelessProcessor stateless,
      StatefulPlan plan,
      ObjectStore checkpointStore,
      Path localDir) {
    this(pipelineId, stateless, null, plan, checkpointStore, localDir);
  }

  /**
   * The stateful operators of one sub-pipeline of a stateful group-mode pipeline (docs/DESIGN.md,
   * "Stateful pipelines in group mode"): its records are those of one repartition-topic partition
   * ({@link ExchangeRecords}), already parsed, transformed, joined and checked by stage 1. A row
   * goes through the operators as a parsed row does (the input checks run again, cheaply); a marker
   * advances the watermark's maximum event time without a row. The partition is one ordered input.
   *
   * @param subPipelineId names the sub-pipeline in messages and quarantine rows (e.g. {@code
   *     orders.3})
   * @param plan the stateful plan with its joins bound (its input schema is the exchanged rows')
   * @param exchange the codec of the repartition topic's records for {@code plan}
   * @param checkpointStore the store rooted at the sub-pipeline's checkpoint; not closed by this
   *     processor
   * @param localDir a directory this processor owns for the state stores' working copies
   */
  public static StatefulProcessor forExchange(
      String subPipelineId,
      StatefulPlan plan,
      ExchangeRecords exchange,
      ObjectStore checkpointStore,
      Path localDir) {
    StatefulProcessor p =
        new StatefulProcessor(
            subPipelineId,
            null,
            Objects.requireNonNull(exchange, "exchange"),
            plan,
            checkpointStore,
            localDir);
    if (plan.hasWatermark()) {
      p.sourceClock = new SourceClock(checkpointStore, localDir.resolve(SourceClock.OPERATOR));
    }
    return p;
  }

  /**
   * The stateful operators of one sub-pipeline of a keyed-by group-mode pipeline (docs/DESIGN.md,
   * "Keyed-by sources: no exchange"): it reads one source partition directly, and every record's
   * row goes through {@code check} first; a record that fails it is quarantined with the check's
   * reason and never reaches state.
   *
   * @param subPipelineId names the sub-pipeline in messages (e.g. {@code orders.3})
   * @param stateless the stateless steps (without joins: they are shared by the sub-pipelines)
   */
  public static StatefulProcessor checked(
      String subPipelineId,
      StatelessProcessor stateless,
      StatefulPlan plan,
      RowCheck check,
      ObjectStore checkpointStore,
      Path localDir) {
    StatefulProcessor p =
        new StatefulProcessor(subPipelineId, stateless, null, plan, checkpointStore, localDir);
    p.rowCheck = Objects.requireNonNull(check, "check");
    return p;
  }

  private StatefulProcessor(
      String pipelineId,
      StatelessProcessor stateless,
      ExchangeRecords exchange,
      StatefulPlan plan,
      ObjectStore checkpointStore,
      Path localDir) {
    this.stateless = stateless;
    this.exchange = exchange;
    this.pipelineId = pipelineId;
    if (plan.provisional() && stateless == null) {
      throw new IllegalArgumentException(
          "pipeline "
              + pipelineId
              + ": the stateful plan was compiled before its"
              + " joins were bound; the exchanged rows hold the joined columns");
    }
    if (stateless != null
        && (plan.provisional() || !stateless.outputSchema().equals(plan.inputSchema()))) {
      throw new IllegalArgumentException(
          "pipeline "
              + pipelineId
              + ": the stateful plan was compiled for "
              + plan.inputSchema().fieldNames()
              + (plan.provisional() ? " before its joins were bound" : "")
              + " but the stateless steps produce "
              + stateless.outputSchema().fieldNames());
    }
    this.checkedRows = new CheckedRows(stateless, plan);
    this.query = new StatefulQuery(plan, checkpointStore, localDir, exchange == null);
    this.plan = plan;
  }

  /** The versions of the dimension tables the new batch joins with (none without joins). */
  @Override
  public Map<String, String> planBatch(long batchId) throws IOException {
    return stateless == null
        ? Map.of()
        : stateless.planBatch(batchId); // exchanged rows are joined already
  }

  @Override
  public void beginBatch(BatchContext batch) throws IOException {
    this.batchId = batch.batchId();
    this.batchStartedAt = batch.batchStartedAt();
    if (stateless != null) {
      stateless.beginBatch(batch);
      if (stateless.sourceTable().isEmpty()) {
        if (decodeAhead == null) {
          decodeAhead = new DecodeAhead<>(DECODE_CHUNK, stateless::decode, pipelineId + "-decode");
        }
        decodeAhead.begin(); // drops what an abandoned batch left
      }
    }
    query.begin(batch.batchId(), batch.watermarkMicros(), batch.lateWatermarkMicros());
    if (sourceClock != null) {
      sourceClock.begin(batch.batchId());
    }
    for (TopicPartition tp : batch.backlogged()) {
      query.backlogged(partitionIndexes.computeIfAbsent(tp, k -> partitionIndexes.size()));
    }
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws Exception {
    if (exchange != null) {
      processExchanged(record, outputs);
      return;
    }
    if (decodeAhead == null) {
      throw new IllegalStateException(
          "Pipeline "
              + pipelineId
              + ": Kafka record "
              + record.topic()
              + "/"
              + record.partition()
              + "@"
              + record.offset()
              + " reached the processor before a batch began, or a processor of table rows");
    }
    DecodeAhead.Done decoded = decodeAhead.add(record);
    if (decoded != null) {
      apply(decoded, outputs);
    }
  }

  /** The steps after decoding, for a chunk of records in read order. */
  private void apply(DecodeAhead.Done chunk, BatchOutputs outputs) throws Exception {
    for (int i = 0; i < chunk.size(); i++) {
      ConsumerRecord<byte[], byte[]> record = chunk.input(i);
      ParseResult result = chunk.result(i); // throws what decoding the record threw
      int partition = partitionIndex(record);
      query.read(partition);
      Object[] row = stateless.toDecodedRow(record, result, outputs);
      if (row != null && rowCheck != null) {
        Optional<String> problem = rowCheck.problem(record, row);
        if (problem.isPresent()) {
          stateless.quarantine(record, problem.get(), outputs);
          continue;
        }
      }
      if (row != null) {
        accept(row, partition, outputs, problem -> stateless.quarantine(record, problem, outputs));
      }
    }
  }

  /** Applies the records still being decoded, so that what comes next sees them first. */
  private void applyDecoded(BatchOutputs outputs) throws Exception {
    if (decodeAhead != null) {
      for (DecodeAhead.Done chunk : decodeAhead.drain()) {
        apply(chunk, outputs);
      }
    }
  }

  /**
   * A record of the repartition topic: one input ("partition" 0 of the watermark). A record this
   * version cannot decode is a bug or a foreign writer on an internal topic, so it fails the batch
   * (naming the record) rather than being quarantined as bad input.
   */
  private void processExchanged(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws Exception {
    query.read(0);
    ExchangeRecords.Decoded decoded;
    try {
      decoded = exchange.decode(record.value());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "Pipeline "
              + pipelineId
              + ": the repartition topic's record "
              + record.topic()
              + "/"
              + record.partition()
              + "@"
              + record.offset()
              + " is not an exchange record: "
              + e.getMessage(),
          e);
    }
    if (decoded instanceof ExchangeRecords.Progress progress) {
      if (sourceClock != null) {
        sourceClock.apply(progress);
      }
      return;
    }
    if (decoded instanceof ExchangeRecords.Marker marker) {
      query.observeEventTime(0, marker.eventTimeMicros()); // an earlier version's record
      return;
    }
    outputs.countInput();
    accept(
        ((ExchangeRecords.Row) decoded).values(),
        0,
        outputs,
        problem ->
            outputs.quarantine(
                QuarantineRows.row(record, problem, pipelineId, batchId, batchStartedAt)));
  }

  /**
   * A typed row of a table source (a Delta table): the same operators as a record's row, its
   * transforms applied to the table's columns; a row set aside is quarantined with its provenance.
   * The table is one ordered input, one "partition" for the watermark.
   */
  @Override
  public void processRow(SourceRow source, BatchOutputs outputs) throws Exception {
    if (stateless == null) {
      throw new UnsupportedOperationException(
          "Pipeline " + pipelineId + " reads the repartition topic, not rows");
    }
    applyDecoded(outputs); // a composite source's records read before this row come first
    if (tableIndex < 0) {
      tableIndex = partitionIndexes.computeIfAbsent(TABLE_SOURCE, tp -> partitionIndexes.size());
    }
    query.read(tableIndex);
    Object[] row = stateless.toRow(source, outputs);
    if (row != null) {
      accept(row, tableIndex, outputs, problem -> stateless.quarantine(source, problem, outputs));
    }
  }

  private void accept(
      Object[] row, int partition, BatchOutputs outputs, CheckedRows.SetAside setAside)
      throws Exception {
    List<Object[]> rows =
        checkedRows.check(
            row, outputs, joined -> outputs.writesLateRows() && query.mayBeLate(joined), setAside);
    if (rows == null) {
      return;
    }
    for (Object[] joined : rows) {
      query.accept(joined, partition, emitter(outputs));
    }
  }

  @Override
  public void endBatch(BatchOutputs outputs) throws Exception {
    applyDecoded(outputs);
    if (sourceClock != null) {
      sourceClock.candidate().ifPresent(t -> query.observeEventTime(0, t));
    }
    query.end(emitter(outputs));
  }

  @Override
  public OptionalLong nextWatermarkMicros() {
    return query.nextWatermark();
  }

  @Override
  public void commit(long batchId) throws IOException {
    query.commit(batchId);
    if (sourceClock != null) {
      sourceClock.commit(batchId);
    }
  }

  @Override
  public boolean dependsOnRecordOrder() {
    return true;
  }

  @Override
  public boolean wantsNoDataBatch() {
    return query.wantsNoDataBatch();
  }

  @Override
  public void restored(OptionalLong appliedWatermarkMicros, OptionalLong nextWatermarkMicros) {
    query.restored(appliedWatermarkMicros, nextWatermarkMicros);
  }

  @Override
  public Map<String, Long> stateMetrics() {
    Map<String, Long> m = new LinkedHashMap<>(query.metrics());
    long dedupLate = emitter == null ? 0 : emitter.dedupLate;
    long aggregateLate = emitter == null ? 0 : emitter.aggregateLate;
    if (plan.deduplicates() && plan.hasWatermark()) {
      m.put("dedup.lateRows", dedupLate);
    }
    if (plan.aggregates() && plan.hasWatermark()) {
      m.put("aggregate.lateRows", aggregateLate);
    }
    return m;
  }

  @Override
  public void close() {
    try {
      if (decodeAhead != null) {
        decodeAhead.close();
      }
      query.close();
      if (sourceClock != null) {
        sourceClock.close();
      }
    } finally {
      if (stateless != null) {
        stateless.close(); // the joins' dimension stores
      }
    }
  }

  /**
   * A dense number for the record's topic partition. Records come in runs per partition, so the
   * last one is checked first (topic by identity: the consumer hands out one string per fetch).
   */
  private int partitionIndex(ConsumerRecord<byte[], byte[]> record) {
    if (record.topic() == lastTopic && record.partition() == lastPartition) {
      return lastIndex;
    }
    lastTopic = record.topic();
    lastPartition = record.partition();
    lastIndex =
        partitionIndexes.computeIfAbsent(
            new TopicPartition(lastTopic, lastPartition), tp -> partitionIndexes.size());
    return lastIndex;
  }

  /** One emitter per batch's outputs, not one per record (this is the per-record hot path). */
  private OutputsEmitter emitter(BatchOutputs outputs) {
    if (emitter == null || emitter.outputs() != outputs) {
      emitter = new OutputsEmitter(outputs);
    }
    return emitter;
  }

  private final class OutputsEmitter implements Emitter {
    private final BatchOutputs outputs;
    // this batch's late rows per operator, for the state metrics
    private long dedupLate;
    private long aggregateLate;

    OutputsEmitter(BatchOutputs outputs) {
      this.outputs = outputs;
    }

    BatchOutputs outputs() {
      return outputs;
    }

    @Override
    public void output(Object[] row) throws IOException {
      outputs.output(row);
    }

    /** A late row, already checked whole ({@link #process}), with why it was left out. */
    @Override
    public void late(Object[] row, Late why) throws IOException {
      if (Late.DEDUPLICATE.equals(why.operator())) {
        dedupLate++;
      } else {
        aggregateLate++;
      }
      outputs.late(outputs.writesLateRows() ? LateEvents.row(row, why) : row);
    }

    @Override
    public void filtered() {
      outputs.countFiltered();
    }
  }
}
