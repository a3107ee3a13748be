package dev.tributary.service.engine;

import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Parse, append the Kafka metadata columns, transform, and project to the sink's column order
 * (schema columns, derived columns, then {@code _kafka_topic, _kafka_partition, _kafka_offset,
 * _kafka_timestamp}). Records that fail to parse go to the quarantine table with the error.
 * Filters and derived columns can use the Kafka metadata columns too.
 */
public final class StatelessProcessor implements RecordProcessor {
  /** The metadata columns appended to every parsed record. */
  public static final List<StructField> KAFKA_COLUMNS = List.of(
      StructField.nullable("_kafka_topic", PrimitiveType.STRING),
      StructField.nullable("_kafka_partition", PrimitiveType.INTEGER),
      StructField.nullable("_kafka_offset", PrimitiveType.LONG),
      StructField.nullable("_kafka_timestamp", PrimitiveType.TIMESTAMP));

  private final String pipelineId;
  private final JsonRecordParser parser;
  private final CompiledTransforms transforms;
  private final int parsedWidth;
  private final int[] projection;
  private final StructType outputSchema;
  private long batchId;
  private Instant batchStartedAt;

  public StatelessProcessor(String pipelineId, JsonRecordParser parser, CompiledTransforms transforms) {
    this.pipelineId = pipelineId;
    this.parser = parser;
    this.transforms = transforms;
    this.parsedWidth = parser.schema().size();
    // transforms see [parsed columns, kafka columns]; derived columns come after those
    StructType transformed = transforms.outputSchema();
    List<StructField> out = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    int kafkaStart = parsedWidth;
    int kafkaEnd = parsedWidth + KAFKA_COLUMNS.size();
    for (int i = 0; i < transformed.size(); i++) {
      if (i < kafkaStart || i >= kafkaEnd) {
        order.add(i);
        out.add(transformed.fields().get(i));
      }
    }
    for (int i = kafkaStart; i < kafkaEnd; i++) {
      order.add(i);
      out.add(transformed.fields().get(i));
    }
    this.projection = order.stream().mapToInt(Integer::intValue).toArray();
    this.outputSchema = new StructType(out);
  }

  /** The schema transforms are compiled against: the parsed columns followed by the Kafka columns. */
  public static StructType transformInput(StructType parsed) {
    List<StructField> fields = new ArrayList<>(parsed.fields());
    fields.addAll(KAFKA_COLUMNS);
    return new StructType(fields);
  }

  /** The sink table's schema. */
  public StructType outputSchema() {
    return outputSchema;
  }

  @Override
  public void beginBatch(BatchContext batch) {
    this.batchId = batch.batchId();
    this.batchStartedAt = batch.batchStartedAt();
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs) throws Exception {
    Object[] row = toRow(record, outputs);
    if (row != null) {
      outputs.output(row);
    }
  }

  /**
   * The stateless steps for one record: counts it, parses it, appends the Kafka columns, applies
   * the transforms and projects to the output order. Returns the row, or null when the record went
   * to quarantine (unparseable, or an expression failed on it) or a filter removed it.
   */
  public Object[] toRow(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs) throws IOException {
    outputs.countInput();
    byte[] value = record.value();
    ParseResult result = value == null ? ParseResult.failure("record value is null (a tombstone)") : parser.parse(value);
    if (result instanceof ParseResult.Failure failure) {
      outputs.quarantine(QuarantineRows.row(record, failure.error(), pipelineId, batchId, batchStartedAt));
      return null;
    }
    Object[] parsed = ((ParseResult.Success) result).row();
    Object[] row = new Object[parsedWidth + KAFKA_COLUMNS.size()];
    System.arraycopy(parsed, 0, row, 0, parsedWidth);
    row[parsedWidth] = record.topic();
    row[parsedWidth + 1] = record.partition();
    row[parsedWidth + 2] = record.offset();
    row[parsedWidth + 3] = Instant.ofEpochMilli(record.timestamp());
    Object[] transformed;
    try {
      transformed = transforms.apply(row);
    } catch (RuntimeException e) {
      // A record that breaks an expression is quarantined like a malformed one: never a crash loop.
      outputs.quarantine(QuarantineRows.row(record, "transform failed: " + e.getMessage(), pipelineId, batchId,
          batchStartedAt));
      return null;
    }
    if (transformed == null) {
      outputs.countFiltered();
      return null;
    }
    Object[] out = new Object[projection.length];
    for (int i = 0; i < projection.length; i++) {
      out[i] = transformed[projection[i]];
    }
    return out;
  }

  @Override
  public void endBatch(BatchOutputs outputs) {}
}
