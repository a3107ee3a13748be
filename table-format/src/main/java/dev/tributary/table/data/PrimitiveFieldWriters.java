package dev.tributary.table.data;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Field writers of the non-decimal primitive types. Min/max are kept in primitive form and boxed
 * only when the statistics are read. Like Delta, no min/max for boolean and binary columns.
 */
final class PrimitiveFieldWriters {
  private PrimitiveFieldWriters() {}

  /** string: UTF-8 bytes; min/max compared as unsigned bytes (= code point order). */
  static final class StringWriter extends FieldWriter {
    private byte[] min;
    private byte[] max;

    StringWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      byte[] bytes = ((String) value).getBytes(StandardCharsets.UTF_8);
      if (min == null) {
        min = bytes;
        max = bytes;
      } else if (Arrays.compareUnsigned(bytes, min) < 0) {
        min = bytes;
      } else if (Arrays.compareUnsigned(bytes, max) > 0) {
        max = bytes;
      }
      // The array is never modified after this point, so Parquet may keep it without copying.
      consumer.addBinary(Binary.fromConstantByteArray(bytes));
    }

    @Override
    Object minValue() {
      return min == null ? null : StringBounds.lowerBound(new String(min, StandardCharsets.UTF_8));
    }

    @Override
    Object maxValue() {
      return max == null ? null : StringBounds.upperBound(new String(max, StandardCharsets.UTF_8));
    }
  }

  /** integer (INT32). */
  static final class IntWriter extends FieldWriter {
    private int min = Integer.MAX_VALUE;
    private int max = Integer.MIN_VALUE;
    private boolean seen;

    IntWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      int v = (Integer) value;
      min = Math.min(min, v);
      max = Math.max(max, v);
      seen = true;
      consumer.addInteger(v);
    }

    @Override
    Object minValue() {
      return seen ? min : null;
    }

    @Override
    Object maxValue() {
      return seen ? max : null;
    }
  }

  /** date (INT32 days since 1970-01-01). */
  static final class DateWriter extends FieldWriter {
    private int min = Integer.MAX_VALUE;
    private int max = Integer.MIN_VALUE;
    private boolean seen;

    DateWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      int v = Math.toIntExact(((LocalDate) value).toEpochDay());
      min = Math.min(min, v);
      max = Math.max(max, v);
      seen = true;
      consumer.addInteger(v);
    }

    @Override
    Object minValue() {
      return seen ? LocalDate.ofEpochDay(min) : null;
    }

    @Override
    Object maxValue() {
      return seen ? LocalDate.ofEpochDay(max) : null;
    }
  }

  /** long (INT64). */
  static final class LongWriter extends FieldWriter {
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private boolean seen;

    LongWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      long v = (Long) value;
      min = Math.min(min, v);
      max = Math.max(max, v);
      seen = true;
      consumer.addLong(v);
    }

    @Override
    Object minValue() {
      return seen ? min : null;
    }

    @Override
    Object maxValue() {
      return seen ? max : null;
    }
  }

  /** timestamp (INT64 microseconds since the epoch, UTC). */
  static final class TimestampWriter extends FieldWriter {
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private boolean seen;

    TimestampWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      long v = toMicros((Instant) value);
      min = Math.min(min, v);
      max = Math.max(max, v);
      seen = true;
      consumer.addLong(v);
    }

    static long toMicros(Instant instant) {
      // getNano() is never negative, so this is exact (sub-microsecond digits are dropped).
      return Math.addExact(
          Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    }

    static Instant fromMicros(long micros) {
      return Instant.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }

    @Override
    Object minValue() {
      return seen ? fromMicros(min) : null;
    }

    @Override
    Object maxValue() {
      return seen ? fromMicros(max) : null;
    }
  }

  /**
   * double. Once a NaN is written the column gets no min/max: Spark orders NaN above every number,
   * and a JSON number cannot hold it, so no bound would be both valid and portable.
   */
  static final class DoubleWriter extends FieldWriter {
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;
    private boolean seen;
    private boolean sawNaN;

    DoubleWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      double v = (Double) value;
      if (Double.isNaN(v)) {
        sawNaN = true;
      } else {
        if (v < min) {
          min = v;
        }
        if (v > max) {
          max = v;
        }
        seen = true;
      }
      consumer.addDouble(v);
    }

    @Override
    Object minValue() {
      return seen && !sawNaN ? min : null;
    }

    @Override
    Object maxValue() {
      return seen && !sawNaN ? max : null;
    }
  }

  /** boolean: null count only. */
  static final class BooleanWriter extends FieldWriter {
    BooleanWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      consumer.addBoolean((Boolean) value);
    }
  }

  /** binary: null count only. */
  static final class BinaryWriter extends FieldWriter {
    BinaryWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      // "Reused": the caller may change its array later, so Parquet copies what it keeps.
      consumer.addBinary(Binary.fromReusedByteArray((byte[]) value));
    }
  }

  /** byte and short (INT32 with the INT(8) and INT(16) annotations); values Byte and Short. */
  static final class SmallIntWriter extends FieldWriter {
    private int min = Integer.MAX_VALUE;
    private int max = Integer.MIN_VALUE;
    private boolean seen;

    SmallIntWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      // the cast checks the class: an Integer in a byte column is a caller's error, not a wrap
      int v = type == PrimitiveType.BYTE ? (Byte) value : (Short) value;
      min = Math.min(min, v);
      max = Math.max(max, v);
      seen = true;
      consumer.addInteger(v);
    }

    private Object boxed(int v) {
      return type == PrimitiveType.BYTE ? (Object) (byte) v : (Object) (short) v;
    }

    @Override
    Object minValue() {
      return seen ? boxed(min) : null;
    }

    @Override
    Object maxValue() {
      return seen ? boxed(max) : null;
    }
  }

  /** float (FLOAT); like double, no min/max once a NaN is written. */
  static final class FloatWriter extends FieldWriter {
    private float min = Float.POSITIVE_INFINITY;
    private float max = Float.NEGATIVE_INFINITY;
    private boolean seen;
    private boolean sawNaN;

    FloatWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      float v = (Float) value;
      if (Float.isNaN(v)) {
        sawNaN = true;
      } else {
        min = Math.min(min, v);
        max = Math.max(max, v);
        seen = true;
      }
      consumer.addFloat(v);
    }

    @Override
    Object minValue() {
      return seen && !sawNaN ? min : null;
    }

    @Override
    Object maxValue() {
      return seen && !sawNaN ? max : null;
    }
  }

  /**
   * timestamp_ntz (INT64 microseconds of the wall-clock time counted as if it were UTC, as Spark
   * stores it). No min/max: readers take the absence as "unknown".
   */
  static final class TimestampNtzWriter extends FieldWriter {
    TimestampNtzWriter(
        String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      consumer.addLong(toMicros((LocalDateTime) value));
    }

    static long toMicros(LocalDateTime time) {
      return TimestampWriter.toMicros(time.toInstant(ZoneOffset.UTC));
    }

    static LocalDateTime fromMicros(long micros) {
      return LocalDateTime.ofInstant(TimestampWriter.fromMicros(micros), ZoneOffset.UTC);
    }
  }
}
