package dev.tributary.service.sink;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A row as a JSON object by column name, the value of a Kafka sink's records and a {@code jsonb}
 * column's text: numbers and booleans as such (a decimal exactly, a double's NaN and infinities as
 * the strings {@code "NaN"}, {@code "Infinity"}), text as text, timestamps as ISO-8601 UTC text
 * with {@code Z} ({@code 2026-01-01T12:00:00.123456Z}), dates as {@code 2026-01-01}, binary as
 * base64, nested columns as nested objects, null as {@code null}. Not thread-safe: one encoder per
 * thread.
 */
public final class RowJson {
  private static final JsonFactory JSON = new JsonFactory();

  private final StructType schema;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);

  public RowJson(StructType schema) {
    this.schema = schema;
  }

  /** The row as UTF-8 JSON. */
  public byte[] encode(Object[] row) {
    bytes.reset();
    try (JsonGenerator g = JSON.createGenerator(bytes, JsonEncoding.UTF8)) {
      writeStruct(g, schema, row);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // an in-memory stream does not fail
    }
    return bytes.toByteArray();
  }

  /** A value of {@code type} as JSON text ({@code "text"} quoted, numbers bare). */
  public static String text(DataType type, Object value) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      writeValue(g, type, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void writeStruct(JsonGenerator g, StructType schema, Object[] row)
      throws IOException {
    g.writeStartObject();
    for (int i = 0; i < schema.size(); i++) {
      g.writeFieldName(schema.fields().get(i).name());
      writeValue(g, schema.fields().get(i).type(), i < row.length ? row[i] : null);
    }
    g.writeEndObject();
  }

  private static void writeValue(JsonGenerator g, DataType type, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (type instanceof StructType struct) {
      writeStruct(g, struct, (Object[]) v);
    } else if (type instanceof ArrayType array && v instanceof List<?> list) {
      g.writeStartArray();
      for (Object element : list) {
        writeValue(g, array.elementType(), element);
      }
      g.writeEndArray();
    } else if (type instanceof MapType map && v instanceof Map<?, ?> entries) {
      // JSON names are text: a map's keys as their text (numbers, dates in ISO form)
      g.writeStartObject();
      for (Map.Entry<?, ?> e : entries.entrySet()) {
        g.writeFieldName(String.valueOf(e.getKey()));
        writeValue(g, map.valueType(), e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof String s) {
      g.writeString(s);
    } else if (v instanceof Long l) {
      g.writeNumber(l);
    } else if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      g.writeNumber(((Number) v).intValue());
    } else if (v instanceof Float f) {
      if (f.isNaN() || f.isInfinite()) {
        g.writeString(f.toString());
      } else {
        g.writeNumber(f);
      }
    } else if (v instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        g.writeString(d.toString());
      } else {
        g.writeNumber(d);
      }
    } else if (v instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (v instanceof BigDecimal d) {
      g.writeNumber(d.toPlainString());
    } else if (v instanceof Instant t) {
      g.writeString(t.toString());
    } else if (v instanceof LocalDate d) {
      g.writeString(d.toString());
    } else if (v instanceof byte[] b) {
      g.writeString(Base64.getEncoder().encodeToString(b));
    } else {
      g.writeString(v.toString());
    }
  }
}
