package dev.tributary.service.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.table.data.RowChecks;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.function.UnaryOperator;
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
    List<StructField> fields = new ArrayList<>(SCHEMA.fields());
    fields.add(INPUT);
    return new StructType(fields);
  }

  /**
   * The quarantine table of a pipeline with a stream-stream join of two tables: {@link
   * #SOURCE_ROW_SCHEMA}'s columns, then {@code input}.
   */
  public static final StructType JOINED_SOURCE_ROW_SCHEMA = joinedSourceRows();

  private static StructType joinedSourceRows() {
    List<StructField> fields = new ArrayList<>(SOURCE_ROW_SCHEMA.fields());
    fields.add(INPUT);
    return new StructType(fields);
  }

  /** The number of provenance columns a table row has before {@code error}. */
  private static final int SOURCE_ROW_PROVENANCE = 6;

  /**
   * The quarantine table of a pipeline with a stream-stream join of a Kafka input and a table
   * (either way round): {@link #JOINED_SCHEMA}'s columns, then the table rows' provenance of {@link
   * #SOURCE_ROW_SCHEMA} ({@code source_table, source_file, source_version, source_file_index,
   * source_row, row}), all nullable: a record's row has the table columns null, a table row's has
   * the Kafka ones null. Appending the table columns after {@link #JOINED_SCHEMA}'s keeps {@code
   * error} at {@link #ERROR_INDEX}, and lets a table of the pipeline before it read a table take
   * them with {@code DeltaTable.addColumns}.
   */
  public static final StructType MIXED_SCHEMA = mixed();

  private static StructType mixed() {
    List<StructField> fields = new ArrayList<>(JOINED_SCHEMA.fields());
    fields.addAll(SOURCE_ROW_SCHEMA.fields().subList(0, SOURCE_ROW_PROVENANCE));
    return new StructType(fields);
  }

  /** What an input of a joined pipeline delivers, which decides its quarantine rows' layout. */
  public enum InputKind {
    /** Kafka records ({@link #row(ConsumerRecord, String, String, long, Instant)}). */
    RECORDS,
    /**
     * A table's typed rows ({@link #row(SourceRow, String, StructType, String, String, long,
     * Instant)}).
     */
    TABLE_ROWS
  }

  /** The quarantine schema of a stream-stream join of inputs of these kinds. */
  public static StructType joinedSchema(InputKind main, InputKind second) {
    if (main != second) {
      return MIXED_SCHEMA;
    }
    return main == InputKind.RECORDS ? JOINED_SCHEMA : JOINED_SOURCE_ROW_SCHEMA;
  }

  /**
   * How a quarantine row of an input of kind {@code of}, {@code input} column included (as {@link
   * BatchOutputs#quarantine} completes it), becomes a row of {@link #joinedSchema}{@code (main,
   * second)}: unchanged when both inputs are of one kind; else placed into {@link #MIXED_SCHEMA},
   * the other kind's provenance null.
   */
  public static UnaryOperator<Object[]> joinedLayout(
      InputKind main, InputKind second, InputKind of) {
    if (main == second) {
      return UnaryOperator.identity();
    }
    return of == InputKind.RECORDS ? MIXED_FROM_RECORD : MIXED_FROM_TABLE_ROW;
  }

  /** A record's quarantine row (with {@code input}) in {@link #MIXED_SCHEMA}: the table's null. */
  private static final UnaryOperator<Object[]> MIXED_FROM_RECORD =
      row -> Arrays.copyOf(row, MIXED_SCHEMA.size());

  /**
   * A table row's quarantine row (with {@code input}) in {@link #MIXED_SCHEMA}: Kafka's provenance
   * null, then error, pipeline, batch_id, quarantined_at, input, then the table's provenance.
   */
  private static final UnaryOperator<Object[]> MIXED_FROM_TABLE_ROW =
      row -> {
        Object[] out = new Object[MIXED_SCHEMA.size()];
        System.arraycopy(
            row,
            SOURCE_ROW_PROVENANCE,
            out,
            QuarantineRows.ERROR_INDEX,
            row.length - SOURCE_ROW_PROVENANCE);
        System.arraycopy(row, 0, out, JOINED_SCHEMA.size(), SOURCE_ROW_PROVENANCE);
        return out;
      };

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
