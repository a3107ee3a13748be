package dev.tributary.service.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.table.data.RowChecks;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Base64;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The quarantine table: every record that could not be parsed, with its provenance, so nothing is
 * dropped silently and a fixed record can be replayed from it.
 */
public final class QuarantineRows {
  /**
   * Columns: topic, partition, offset, kafka_timestamp, key, value, error, pipeline, batch_id,
   * quarantined_at.
   */
  public static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("topic", PrimitiveType.STRING),
          StructField.nullable("partition", PrimitiveType.INTEGER),
          StructField.nullable("offset", PrimitiveType.LONG),
          StructField.nullable("kafka_timestamp", PrimitiveType.TIMESTAMP),
          StructField.nullable("key", PrimitiveType.BINARY),
          StructField.nullable("value", PrimitiveType.BINARY),
          StructField.nullable("error", PrimitiveType.STRING),
          StructField.nullable("pipeline", PrimitiveType.STRING),
          StructField.nullable("batch_id", PrimitiveType.LONG),
          StructField.nullable("quarantined_at", PrimitiveType.TIMESTAMP));

  /**
   * The quarantine table of a pipeline whose source is a table (typed rows, nothing to parse):
   * source_table (location), source_file (path in the table), source_version (the commit, or the
   * snapshot version, that made the file readable), source_file_index (the file's index in that
   * version), source_row (row index in the file), row (the row's values as a JSON object), error,
   * pipeline, batch_id, quarantined_at. The first five name the row exactly, as {@link
   * SourceRow#provenance()} does.
   */
  public static final StructType SOURCE_ROW_SCHEMA =
      StructType.of(
          StructField.nullable("source_table", PrimitiveType.STRING),
          StructField.nullable("source_file", PrimitiveType.STRING),
          StructField.nullable("source_version", PrimitiveType.LONG),
          StructField.nullable("source_file_index", PrimitiveType.LONG),
          StructField.nullable("source_row", PrimitiveType.LONG),
          StructField.nullable("row", PrimitiveType.STRING),
          StructField.nullable("error", PrimitiveType.STRING),
          StructField.nullable("pipeline", PrimitiveType.STRING),
          StructField.nullable("batch_id", PrimitiveType.LONG),
          StructField.nullable("quarantined_at", PrimitiveType.TIMESTAMP));

  /** The input column of a joined pipeline's quarantine table ({@link #JOINED_SCHEMA}). */
  public static final StructField INPUT = StructField.nullable("input", PrimitiveType.STRING);

  /** {@link #INPUT}'s value for a record of the pipeline's main input. */
  public static final String MAIN_INPUT = "main";

  /** {@link #INPUT}'s value for a record of the stream-stream join's second input. */
  public static final String JOIN_INPUT = "join[0]";

  /**
   * The quarantine table of a pipeline with a stream-stream join (two Kafka inputs): {@link
   * #SCHEMA}'s columns, then {@code input} ({@value #MAIN_INPUT} or {@value #JOIN_INPUT}), which
   * {@link BatchOutputs#quarantineInput} fills in.
   */
  public static final StructType JOINED_SCHEMA = joined();

  private static StructType joined() {
    java.util.List<StructField> fields = new java.util.ArrayList<>(SCHEMA.fields());
    fields.add(INPUT);
    return new StructType(fields);
  }

  /** The position of the {@code error} column in both schemas. */
  static final int ERROR_INDEX = 6;

  private static final ObjectMapper JSON = new ObjectMapper();

  private QuarantineRows() {}

  /** The quarantine row ({@link #SOURCE_ROW_SCHEMA}) of a typed source row in {@code schema}. */
  public static Object[] row(
      SourceRow row,
      String table,
      StructType schema,
      String error,
      String pipeline,
      long batchId,
      Instant at) {
    return new Object[] {
      table,
      row.file().path(),
      row.file().version(),
      row.file().index(),
      row.rowIndex(),
      json(row.values(), schema),
      error,
      pipeline,
      batchId,
      at
    };
  }

  /**
   * The values as a JSON object by column name: numbers and booleans as such, binary in base64, the
   * rest as text.
   */
  static String json(Object[] values, StructType schema) {
    var node = JSON.createObjectNode();
    for (int i = 0; i < schema.size() && i < values.length; i++) {
      String name = schema.fields().get(i).name();
      Object v = values[i];
      if (v == null) {
        node.putNull(name);
      } else if (v instanceof Long l) {
        node.put(name, l);
      } else if (v instanceof Integer n) {
        node.put(name, n);
      } else if (v instanceof Double d) {
        node.put(name, d);
      } else if (v instanceof Float f) {
        node.put(name, f);
      } else if (v instanceof Boolean b) {
        node.put(name, b);
      } else if (v instanceof BigDecimal d) {
        node.put(name, d);
      } else if (v instanceof byte[] bytes) {
        node.put(name, Base64.getEncoder().encodeToString(bytes));
      } else {
        node.put(name, v.toString());
      }
    }
    return node.toString();
  }

  /**
   * The quarantine row of a record. A Kafka timestamp outside the years 0001-9999 (producers may
   * set any) is stored as null, so that the quarantine row itself can always be written.
   */
  public static Object[] row(
      ConsumerRecord<byte[], byte[]> record,
      String error,
      String pipeline,
      long batchId,
      Instant at) {
    Instant kafkaTimestamp = Instant.ofEpochMilli(record.timestamp());
    if (RowChecks.valueProblem("kafka_timestamp", PrimitiveType.TIMESTAMP, kafkaTimestamp)
        != null) {
      kafkaTimestamp = null;
    }
    return new Object[] {
      record.topic(),
      record.partition(),
      record.offset(),
      kafkaTimestamp,
      record.key(),
      record.value(),
      error,
      pipeline,
      batchId,
      at
    };
  }
}
