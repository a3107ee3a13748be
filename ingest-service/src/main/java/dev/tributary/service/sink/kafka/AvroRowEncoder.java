package dev.tributary.service.sink.kafka;

import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * A row as a Kafka record value in the Confluent wire format: magic byte 0, the registered schema
 * id (4 bytes, big-endian), then the row in Avro binary encoding under {@link AvroRowSchema#of} of
 * the same columns. The encoder walks the row along the column types, so that the bytes are exactly
 * what Avro's {@code GenericDatumWriter} writes for that schema (a nullable value is preceded by
 * its union branch: 0 for null, 1 for the value).
 *
 * <p>Not thread-safe: one encoder per writer.
 */
public final class AvroRowEncoder {
  private final StructType schema;
  private final byte[] header;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
  private BinaryEncoder out;

  /**
   * @param schema the output columns the schema was derived from
   * @param schemaId the id the registry gave that schema
   */
  public AvroRowEncoder(StructType schema, int schemaId) {
    this.schema = schema;
    this.header = ConfluentWireFormat.header(schemaId);
  }

  /**
   * The record value of {@code row}.
   *
   * @throws IllegalArgumentException if a column that is not nullable holds null, naming it
   */
  public byte[] encode(Object[] row) {
    bytes.reset();
    bytes.writeBytes(header);
    out = EncoderFactory.get().binaryEncoder(bytes, out);
    try {
      writeStruct(schema, row, "");
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // an in-memory stream does not fail
    }
    return bytes.toByteArray();
  }

  private void writeStruct(StructType struct, Object[] row, String prefix) throws IOException {
    for (int i = 0; i < struct.size(); i++) {
      StructField field = struct.fields().get(i);
      Object value = i < row.length ? row[i] : null;
      writeMaybeNull(field.type(), value, field.nullable(), prefix + field.name());
    }
  }

  private void writeMaybeNull(DataType type, Object value, boolean nullable, String path)
      throws IOException {
    if (nullable) {
      out.writeIndex(value == null ? 0 : 1);
      if (value != null) {
        write(type, value, path);
      }
    } else if (value == null) {
      throw new IllegalArgumentException(
          "column '" + path + "' is not nullable but the row holds null there");
    } else {
      write(type, value, path);
    }
  }

  private void write(DataType type, Object value, String path) throws IOException {
    if (type instanceof StructType struct) {
      writeStruct(struct, (Object[]) value, path + ".");
    } else if (type instanceof ArrayType array) {
      List<?> list = (List<?>) value;
      out.writeArrayStart();
      out.setItemCount(list.size());
      for (Object element : list) {
        out.startItem();
        writeMaybeNull(array.elementType(), element, array.containsNull(), path);
      }
      out.writeArrayEnd();
    } else if (type instanceof MapType map) {
      Map<?, ?> entries = (Map<?, ?>) value;
      out.writeMapStart();
      out.setItemCount(entries.size());
      for (Map.Entry<?, ?> e : entries.entrySet()) {
        out.startItem();
        out.writeString(keyText(e.getKey()));
        writeMaybeNull(map.valueType(), e.getValue(), map.valueContainsNull(), path);
      }
      out.writeMapEnd();
    } else if (type instanceof DecimalType decimal) {
      // the scale is the declared one already; setScale only guards against a wider value
      BigDecimal d = ((BigDecimal) value).setScale(decimal.scale(), RoundingMode.UNNECESSARY);
      out.writeBytes(ByteBuffer.wrap(d.unscaledValue().toByteArray()));
    } else {
      writePrimitive((PrimitiveType) type, value);
    }
  }

  private void writePrimitive(PrimitiveType type, Object value) throws IOException {
    switch (type) {
      case STRING -> out.writeString((String) value);
      case LONG -> out.writeLong((Long) value);
      case INTEGER, SHORT, BYTE -> out.writeInt(((Number) value).intValue());
      case DOUBLE -> out.writeDouble((Double) value);
      case FLOAT -> out.writeFloat((Float) value);
      case BOOLEAN -> out.writeBoolean((Boolean) value);
      case BINARY -> out.writeBytes((byte[]) value);
      case DATE -> out.writeInt(Math.toIntExact(((LocalDate) value).toEpochDay()));
      case TIMESTAMP -> out.writeLong(micros((Instant) value));
      case TIMESTAMP_NTZ ->
          out.writeLong(micros(((LocalDateTime) value).toInstant(ZoneOffset.UTC)));
    }
  }

  /** Microseconds since the epoch (an Instant's nanoseconds are never negative). */
  static long micros(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
  }

  /** An Avro map key is a string: other keys as their text, binary as base64 (as in JSON). */
  private static String keyText(Object key) {
    if (key instanceof String s) {
      return s;
    }
    if (key instanceof byte[] b) {
      return Base64.getEncoder().encodeToString(b);
    }
    return String.valueOf(key);
  }
}
