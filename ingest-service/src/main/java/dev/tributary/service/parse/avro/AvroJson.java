package dev.tributary.service.parse.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;

/**
 * An Avro value as plain JSON, for {@code _rescued_data} and for the JSON text of records, arrays
 * and maps that become string columns (docs/SCHEMA_EVOLUTION.md, "Avro"). Plain JSON, not Avro's
 * JSON encoding: a union's value is written as its branch's value (no {@code {"type": value}}
 * wrapper), so the rescued object reads like the JSON path's. Logical types are rendered as what
 * they mean: timestamps as ISO-8601 instants in UTC ({@code 2024-05-01T10:15:30.123Z}; {@code
 * local-} variants without the zone), dates as {@code 2024-05-01}, times of day as {@code
 * 10:15:30.123}, decimals as strings holding the exact number ({@code "12.30"}: a JSON number would
 * be read as a double by most consumers), uuids as text. Plain bytes and fixed are base64 text (as
 * protobuf's JSON mapping), enums their symbol, NaN and infinities the strings {@code "NaN"},
 * {@code "Infinity"}, {@code "-Infinity"} (JSON has no such numbers).
 */
final class AvroJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private AvroJson() {}

  /**
   * The JSON of {@code value}, a value of writer schema {@code s} as Avro's generic reader returns
   * it.
   */
  static JsonNode of(Schema s, Object value) {
    if (value == null) {
      return NODES.nullNode();
    }
    if (s.getType() == Schema.Type.UNION) {
      return of(s.getTypes().get(GenericData.get().resolveUnion(s, value)), value);
    }
    LogicalType logical = s.getLogicalType();
    return switch (s.getType()) {
      case RECORD -> {
        ObjectNode o = NODES.objectNode();
        IndexedRecord r = (IndexedRecord) value;
        for (Schema.Field f : s.getFields()) {
          o.set(f.name(), of(f.schema(), r.get(f.pos())));
        }
        yield o;
      }
      case ARRAY -> {
        ArrayNode a = NODES.arrayNode();
        for (Object item : (Iterable<?>) value) {
          a.add(of(s.getElementType(), item));
        }
        yield a;
      }
      case MAP -> {
        ObjectNode o = NODES.objectNode();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
          o.set(e.getKey().toString(), of(s.getValueType(), e.getValue()));
        }
        yield o;
      }
      case STRING, ENUM -> NODES.textNode(value.toString());
      case BOOLEAN -> NODES.booleanNode((Boolean) value);
      case INT -> {
        String time = time(logical, (Integer) value);
        yield time != null ? NODES.textNode(time) : NODES.numberNode((Integer) value);
      }
      case LONG -> {
        String time = time(logical, (Long) value);
        yield time != null ? NODES.textNode(time) : NODES.numberNode((Long) value);
      }
      case FLOAT -> number(((Float) value).doubleValue());
      case DOUBLE -> number((Double) value);
      case BYTES -> bytes(logical, bytes((ByteBuffer) value));
      case FIXED -> bytes(logical, ((GenericFixed) value).bytes());
      case NULL, UNION -> NODES.nullNode(); // a union was resolved above
    };
  }

  /**
   * The ISO-8601 text of an int or long with a date or time logical type, or null for a plain
   * number. Beyond what {@link Instant} holds, the plain number is kept (nothing is lost).
   */
  static String time(LogicalType logical, long v) {
    if (logical == null) {
      return null;
    }
    try {
      return switch (logical.getName()) {
        case "timestamp-millis" -> Instant.ofEpochMilli(v).toString();
        case "timestamp-micros" ->
            Instant.EPOCH.plusNanos(Math.multiplyExact(v, 1_000L)).toString();
        case "timestamp-nanos" -> Instant.EPOCH.plusNanos(v).toString();
        case "local-timestamp-millis" ->
            LocalDateTime.ofInstant(Instant.ofEpochMilli(v), ZoneOffset.UTC).toString();
        case "local-timestamp-micros" ->
            LocalDateTime.ofInstant(
                    Instant.EPOCH.plusNanos(Math.multiplyExact(v, 1_000L)), ZoneOffset.UTC)
                .toString();
        case "local-timestamp-nanos" ->
            LocalDateTime.ofInstant(Instant.EPOCH.plusNanos(v), ZoneOffset.UTC).toString();
        case "date" -> LocalDate.ofEpochDay(v).toString();
        case "time-millis" -> LocalTime.ofNanoOfDay(Math.multiplyExact(v, 1_000_000L)).toString();
        case "time-micros" -> LocalTime.ofNanoOfDay(Math.multiplyExact(v, 1_000L)).toString();
        default -> null;
      };
    } catch (ArithmeticException | DateTimeException e) {
      return null;
    }
  }

  private static JsonNode bytes(LogicalType logical, byte[] b) {
    if (logical instanceof LogicalTypes.Decimal d) {
      return NODES.textNode(new BigDecimal(new BigInteger(b), d.getScale()).toPlainString());
    }
    return NODES.textNode(Base64.getEncoder().encodeToString(b));
  }

  private static JsonNode number(double d) {
    return Double.isFinite(d) ? NODES.numberNode(d) : NODES.textNode(Double.toString(d));
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
