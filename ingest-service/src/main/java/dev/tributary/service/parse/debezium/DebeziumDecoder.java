package dev.tributary.service.parse.debezium;

import dev.tributary.config.EnvelopeSpec;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.parse.avro.AvroRecordDecoder;
import dev.tributary.service.parse.avro.SchemaSource;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes Debezium change events into rows of the table ({@code envelope: debezium},
 * docs/PIPELINE_REFERENCE.md "Debezium change events"). The format's own decoder reads the event
 * over a schema derived from the declared row columns ({@code op}, {@code source.ts_ms}, {@code
 * source.ts_us}, {@code before.<column>}, {@code after.<column>}, and the fields that tell control
 * events apart); this class turns what it read into the row:
 *
 * <pre>
 *   op c, u, r  → the row from after,  _op = op, _source_ts = source.ts_us (else source.ts_ms)
 *   op d        → the row from before, _op = d
 *   op t        → fails the batch (TruncateEventException), or skipped with on-truncate: skip
 *   no op       → a transaction boundary (status), schema change (ddl) or heartbeat (ts_ms only):
 *                 skipped (counted as filtered); anything else is quarantined
 *   null value  → skipped: a tombstone (an upsert sees it first and deletes its key)
 * </pre>
 *
 * <p>A {@code date} column is read as Debezium writes it, an int of days since 1970-01-01.
 *
 * <p>Rows are the declared columns, then the key's declared columns (Avro {@code key}), then {@code
 * _op} and {@code _source_ts}. JSON values may come with the JSON converter's schema ({@code
 * {"schema": …, "payload": {event}}}) or without ({@code {event}}); keys too. A tombstone's key
 * fills the row's columns of the same names (Debezium keys are the primary key's columns).
 *
 * <p>Thread-safe, like the decoders it wraps.
 */
public final class DebeziumDecoder implements RecordDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(DebeziumDecoder.class);
  private static final String PAYLOAD = "payload";

  private final String pipelineId;
  private final String formatPath;
  private final EnvelopeSpec.OnTruncate onTruncate;
  private final RecordDecoder events;
  private final EventFields top;
  // JSON only: the envelope inside the JSON converter's payload, and the key read like a row.
  private final EventFields payload;
  private final int payloadIndex;
  private final int schemaIndex;
  private final RecordDecoder rowKeys;
  private final int rowKeyPayloadIndex;
  private final int rowKeyOffset;
  private final int rowWidth;
  private final int keyWidth;
  private final int eventWidth;
  private final List<int[]> datePaths;
  private final StructType schema;
  private final Set<String> announced = ConcurrentHashMap.newKeySet();

  private DebeziumDecoder(Builder b) {
    this.pipelineId = b.pipelineId;
    this.formatPath = b.formatPath;
    this.onTruncate = b.onTruncate;
    this.events = b.events;
    this.rowKeys = b.rowKeys;
    this.rowKeyOffset = b.rowKeyOffset;
    this.rowWidth = b.row.size();
    this.datePaths = datePaths(b.row, new int[0]);
    this.keyWidth = b.key == null ? 0 : b.key.size();
    StructType eventSchema = events.schema();
    this.eventWidth = eventSchema.size() - keyWidth;
    this.top = EventFields.of(eventSchema);
    int payloadAt = eventSchema.indexOf(PAYLOAD);
    this.payloadIndex = b.wrapped ? payloadAt : -1;
    this.payload =
        b.wrapped ? EventFields.of((StructType) eventSchema.fields().get(payloadAt).type()) : null;
    this.schemaIndex = b.wrapped ? eventSchema.indexOf("schema") : -1;
    this.rowKeyPayloadIndex = b.keyWrapped ? rowKeys.schema().indexOf(PAYLOAD) : -1;
    List<StructField> fields = new ArrayList<>(b.row.fields());
    if (b.key != null) {
      fields.addAll(b.key.fields());
    }
    fields.add(StructField.nullable(EnvelopeSpec.OP_COLUMN, PrimitiveType.STRING));
    fields.add(StructField.nullable(EnvelopeSpec.SOURCE_TS_COLUMN, PrimitiveType.TIMESTAMP));
    this.schema = new StructType(fields);
  }

  /**
   * A decoder of JSON Debezium events whose rows have {@code rowColumns} ({@code column: type}, as
   * {@code format.json.schema}).
   *
   * @throws IllegalArgumentException naming the column, for an unknown type or a conflict
   */
  public static DebeziumDecoder json(
      String pipelineId,
      LinkedHashMap<String, String> rowColumns,
      long maxRecordBytes,
      EnvelopeSpec.OnTruncate onTruncate) {
    LinkedHashMap<String, String> columns = eventColumns("", rowColumns);
    columns.putAll(eventColumns(PAYLOAD + ".", rowColumns));
    columns.put("schema.type", "string"); // tells the converter's wrapper of a null payload
    // A key is read like a row: bare ({"id": 1}) or in the converter's wrapper, unless a row
    // column is itself named payload (then only bare keys).
    LinkedHashMap<String, String> wire = wireTypes(rowColumns);
    LinkedHashMap<String, String> keyColumns = new LinkedHashMap<>(wire);
    boolean payloadColumn = rowColumns.keySet().stream().anyMatch(DebeziumDecoder::isPayload);
    if (!payloadColumn) {
      wire.forEach((name, type) -> keyColumns.put(PAYLOAD + "." + name, type));
    }
    Builder b = new Builder(pipelineId, "format.json", onTruncate);
    b.row = JsonRecordParser.schemaOf(rowColumns);
    b.events = JsonRecordParser.forColumns(columns, maxRecordBytes);
    b.wrapped = true;
    b.rowKeys = JsonRecordParser.forColumns(keyColumns, maxRecordBytes);
    b.rowKeyOffset = 0;
    b.keyWrapped = !payloadColumn;
    return new DebeziumDecoder(b);
  }

  /**
   * A decoder of Avro Debezium events (Confluent wire format) whose {@code before} and {@code
   * after} records have the fields {@code rowColumns}; {@code keyColumns} (possibly none) are read
   * from the record key into columns of their own, as {@code format.avro.key}.
   *
   * @throws IllegalArgumentException naming the column, for an unknown type or a conflict
   */
  public static DebeziumDecoder avro(
      String pipelineId,
      SchemaSource schemas,
      LinkedHashMap<String, String> rowColumns,
      LinkedHashMap<String, String> keyColumns,
      long maxRecordBytes,
      EnvelopeSpec.OnTruncate onTruncate) {
    Builder b = new Builder(pipelineId, "format.avro", onTruncate);
    b.row = JsonRecordParser.schemaOf(rowColumns);
    b.key = keyColumns.isEmpty() ? null : JsonRecordParser.schemaOf(keyColumns);
    LinkedHashMap<String, String> columns = eventColumns("", rowColumns);
    b.events = new AvroRecordDecoder(schemas, columns, keyColumns, maxRecordBytes);
    // The key record read with the row's columns: its fields (the primary key) fill them.
    b.rowKeys = new AvroRecordDecoder(schemas, columns, wireTypes(rowColumns), maxRecordBytes);
    b.rowKeyOffset = JsonRecordParser.schemaOf(columns).size();
    b.wrapped = false;
    return new DebeziumDecoder(b);
  }

  /** The event's fields this decoder reads, each under {@code prefix}. */
  private static LinkedHashMap<String, String> eventColumns(
      String prefix, LinkedHashMap<String, String> rowColumns) {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put(prefix + "op", "string");
    columns.put(prefix + "ts_ms", "long");
    columns.put(prefix + "status", "string");
    columns.put(prefix + "ddl", "string");
    columns.put(prefix + "source.ts_ms", "long");
    columns.put(prefix + "source.ts_us", "long");
    LinkedHashMap<String, String> wire = wireTypes(rowColumns);
    wire.forEach((name, type) -> columns.put(prefix + "before." + name, type));
    wire.forEach((name, type) -> columns.put(prefix + "after." + name, type));
    return columns;
  }

  /**
   * The row's columns with the types Debezium writes them in: a {@code date} is an int, the days
   * since 1970-01-01 ({@code io.debezium.time.Date}, and Kafka Connect's {@code Date}), turned into
   * a date by {@link #dates}.
   */
  private static LinkedHashMap<String, String> wireTypes(LinkedHashMap<String, String> rowColumns) {
    LinkedHashMap<String, String> wire = new LinkedHashMap<>();
    rowColumns.forEach(
        (name, type) -> wire.put(name, "date".equalsIgnoreCase(type.strip()) ? "int" : type));
    return wire;
  }

  /** The index paths of the row's date fields (nested structs included). */
  private static List<int[]> datePaths(StructType struct, int[] parent) {
    List<int[]> paths = new ArrayList<>();
    for (int i = 0; i < struct.size(); i++) {
      int[] path = Arrays.copyOf(parent, parent.length + 1);
      path[parent.length] = i;
      DataType type = struct.fields().get(i).type();
      if (type == PrimitiveType.DATE) {
        paths.add(path);
      } else if (type instanceof StructType nested) {
        paths.addAll(datePaths(nested, path));
      }
    }
    return paths;
  }

  /** Turns the days read for the row's date fields into dates, in place. */
  private void dates(Object[] row) {
    for (int[] path : datePaths) {
      Object[] struct = row;
      for (int i = 0; i < path.length - 1 && struct != null; i++) {
        struct = (Object[]) struct[path[i]];
      }
      if (struct != null && struct[path[path.length - 1]] instanceof Integer days) {
        struct[path[path.length - 1]] = LocalDate.ofEpochDay(days);
      }
    }
  }

  private static boolean isPayload(String column) {
    return column.equals(PAYLOAD) || column.startsWith(PAYLOAD + ".");
  }

  @Override
  public StructType schema() {
    return schema;
  }

  /**
   * Decodes one event; see the class comment.
   *
   * @throws TruncateEventException for a truncate event with {@code on-truncate: fail}
   */
  @Override
  public ParseResult decode(String topic, int partition, long offset, byte[] key, byte[] value) {
    if (value == null) {
      return ParseResult.skipped(DebeziumErrors.tombstone());
    }
    ParseResult read = events.decode(topic, partition, offset, key, value);
    if (!(read instanceof ParseResult.Success success)) {
      return read;
    }
    Object[] decoded = success.row();
    Object[] event = decoded;
    EventFields fields = top;
    String at = "";
    if (payloadIndex >= 0) {
      if (decoded[payloadIndex] instanceof Object[] inner) {
        event = inner;
        fields = payload;
        at = PAYLOAD + ".";
      } else if (decoded[schemaIndex] != null && decoded[top.op()] == null) {
        // the JSON converter's form of a null value: a tombstone, as above
        return ParseResult.skipped(DebeziumErrors.tombstone());
      }
    }
    String op = (String) event[fields.op()];
    if (op == null) {
      return control(topic, event, fields, at);
    }
    return switch (op) {
      case "c", "u", "r" -> {
        Object[] after = (Object[]) event[fields.after()];
        yield after == null
            ? ParseResult.failure(DebeziumErrors.noAfter(at, op))
            : ParseResult.success(row(after, decoded, event, fields, op));
      }
      case "d" -> {
        Object[] before = (Object[]) event[fields.before()];
        yield before == null
            ? ParseResult.failure(DebeziumErrors.noBefore(at))
            : ParseResult.success(row(before, decoded, event, fields, op));
      }
      case "t" -> truncate(topic, partition, offset);
      default -> ParseResult.failure(DebeziumErrors.unknownOp(at, op));
    };
  }

  /**
   * Decodes a tombstone's key: its fields fill the row's columns of the same names (and, for Avro,
   * the declared key columns their own).
   */
  @Override
  public ParseResult decodeKey(
      String topic, int partition, long offset, byte[] key, List<String> keyColumns) {
    ParseResult read = rowKeys.decodeKey(topic, partition, offset, key, keyColumns);
    if (!(read instanceof ParseResult.Success success)) {
      return read;
    }
    Object[] decoded = success.row();
    Object[] out = new Object[schema.size()];
    if (rowKeyPayloadIndex >= 0 && decoded[rowKeyPayloadIndex] instanceof Object[] inner) {
      System.arraycopy(inner, 0, out, 0, rowWidth);
    } else {
      System.arraycopy(decoded, rowKeyOffset, out, 0, rowWidth);
    }
    dates(out);
    if (keyWidth > 0) {
      ParseResult declared = events.decodeKey(topic, partition, offset, key, keyColumns);
      if (!(declared instanceof ParseResult.Success keys)) {
        return declared;
      }
      System.arraycopy(keys.row(), eventWidth, out, rowWidth, keyWidth);
    }
    return ParseResult.success(out);
  }

  private Object[] row(
      Object[] values, Object[] decoded, Object[] event, EventFields fields, String op) {
    Object[] out = new Object[schema.size()];
    System.arraycopy(values, 0, out, 0, rowWidth);
    dates(out);
    if (keyWidth > 0) {
      System.arraycopy(decoded, eventWidth, out, rowWidth, keyWidth);
    }
    out[rowWidth + keyWidth] = op;
    out[rowWidth + keyWidth + 1] = sourceTime(event, fields);
    return out;
  }

  /**
   * When the change happened in the database: {@code source.ts_us} (Debezium 2.6 and later), else
   * {@code source.ts_ms}; null without either. The envelope's own {@code ts_ms} (when the connector
   * processed the event) is another clock and is not used.
   */
  private static Instant sourceTime(Object[] event, EventFields fields) {
    if (!(event[fields.source()] instanceof Object[] source)) {
      return null;
    }
    if (source[fields.sourceTsUs()] instanceof Long micros) {
      return Instant.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
    if (source[fields.sourceTsMs()] instanceof Long millis) {
      return Instant.ofEpochMilli(millis);
    }
    return null;
  }

  /** An event without op: a control event Debezium writes beside the changes, or malformed. */
  private ParseResult control(String topic, Object[] event, EventFields fields, String at) {
    String kind;
    if (event[fields.status()] != null) {
      kind = "transaction metadata event (status " + event[fields.status()] + ")";
    } else if (event[fields.ddl()] != null) {
      kind = "schema change event";
    } else if (event[fields.before()] == null
        && event[fields.after()] == null
        && event[fields.source()] == null
        && event[fields.tsMs()] != null) {
      kind = "heartbeat event";
    } else {
      return ParseResult.failure(DebeziumErrors.noOp(at));
    }
    String family = kind.replaceFirst(" \\(.*", "");
    if (announced.add(topic + '\n' + family)) {
      LOG.info(
          "Pipeline {} skips the Debezium {}s on topic {}: they hold no row (each is counted as"
              + " filtered)",
          pipelineId,
          family,
          topic);
    }
    return ParseResult.skipped(kind);
  }

  private ParseResult truncate(String topic, int partition, long offset) {
    if (onTruncate == EnvelopeSpec.OnTruncate.FAIL) {
      throw new TruncateEventException(
          DebeziumErrors.truncate(pipelineId, topic, partition, offset, formatPath));
    }
    String reason = DebeziumErrors.skippedTruncate(topic, partition, offset);
    LOG.warn(
        "Pipeline {} skips a {}; the table keeps the rows the source table no longer has",
        pipelineId,
        reason);
    return ParseResult.skipped(reason);
  }

  /** Where the event's fields are in what the format decoder read. */
  private record EventFields(
      int op,
      int tsMs,
      int status,
      int ddl,
      int source,
      int sourceTsMs,
      int sourceTsUs,
      int before,
      int after) {

    static EventFields of(StructType event) {
      StructType source = (StructType) event.fields().get(event.indexOf("source")).type();
      return new EventFields(
          event.indexOf("op"),
          event.indexOf("ts_ms"),
          event.indexOf("status"),
          event.indexOf("ddl"),
          event.indexOf("source"),
          source.indexOf("ts_ms"),
          source.indexOf("ts_us"),
          event.indexOf("before"),
          event.indexOf("after"));
    }
  }

  /** The parts of a decoder, set by the factories. */
  private static final class Builder {
    final String pipelineId;
    final String formatPath;
    final EnvelopeSpec.OnTruncate onTruncate;
    StructType row;
    StructType key;
    RecordDecoder events;
    RecordDecoder rowKeys;
    int rowKeyOffset;
    boolean wrapped;
    boolean keyWrapped;

    Builder(String pipelineId, String formatPath, EnvelopeSpec.OnTruncate onTruncate) {
      this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
      this.formatPath = formatPath;
      this.onTruncate = Objects.requireNonNull(onTruncate, "onTruncate");
    }
  }
}
