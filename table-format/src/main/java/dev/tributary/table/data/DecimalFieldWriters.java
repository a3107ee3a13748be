package dev.tributary.table.data;

import dev.tributary.table.types.DecimalType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Field writers of decimals, in the physical width Spark uses for the precision: the unscaled value
 * as INT32 (precision up to 9), INT64 (up to 18) or big-endian two's complement in a
 * FIXED_LEN_BYTE_ARRAY of {@link ParquetSchemas#decimalBytes} bytes.
 */
final class DecimalFieldWriters {
  private DecimalFieldWriters() {}

  /** The value at exactly the column's scale, checked against its precision. */
  static BigDecimal fit(BigDecimal value, DecimalType type, String path) {
    BigDecimal scaled = value;
    if (value.scale() != type.scale()) {
      try {
        scaled = value.setScale(type.scale(), RoundingMode.UNNECESSARY);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(DataErrors.decimalDoesNotFit(path, type, value), e);
      }
    }
    if (scaled.precision() > type.precision()) {
      throw new IllegalArgumentException(DataErrors.decimalDoesNotFit(path, type, value));
    }
    return scaled;
  }

  /** Whether {@link #fit} accepts the value: exact at the column's scale, within its precision. */
  static boolean fits(BigDecimal value, DecimalType type) {
    if (value.signum() == 0) {
      return true;
    }
    if (value.scale() == type.scale()) {
      return value.precision() <= type.precision();
    }
    // On the stripped digits, never by setScale: 1E+999999999 must not expand to a billion digits.
    BigDecimal stripped = value.stripTrailingZeros();
    return stripped.scale() <= type.scale()
        && stripped.precision() - stripped.scale() <= type.precision() - type.scale();
  }

  /** Decimals whose unscaled value fits a long (INT32 or INT64 storage). */
  static final class UnscaledLongWriter extends FieldWriter {
    private final DecimalType decimal;
    private final boolean int32;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private boolean seen;

    UnscaledLongWriter(
        String name,
        String path,
        DecimalType type,
        int fieldIndex,
        int valueIndex,
        boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
      this.decimal = type;
      this.int32 = type.precision() <= 9;
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      long unscaled = fit((BigDecimal) value, decimal, path).unscaledValue().longValueExact();
      min = Math.min(min, unscaled);
      max = Math.max(max, unscaled);
      seen = true;
      if (int32) {
        consumer.addInteger((int) unscaled);
      } else {
        consumer.addLong(unscaled);
      }
    }

    @Override
    Object minValue() {
      return seen ? BigDecimal.valueOf(min, decimal.scale()) : null;
    }

    @Override
    Object maxValue() {
      return seen ? BigDecimal.valueOf(max, decimal.scale()) : null;
    }
  }

  /** Decimals of precision 19 to 38 (FIXED_LEN_BYTE_ARRAY storage). */
  static final class FixedWriter extends FieldWriter {
    private final DecimalType decimal;
    private final int width;
    private BigDecimal min;
    private BigDecimal max;

    FixedWriter(
        String name,
        String path,
        DecimalType type,
        int fieldIndex,
        int valueIndex,
        boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
      this.decimal = type;
      this.width = ParquetSchemas.decimalBytes(type.precision());
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      BigDecimal v = fit((BigDecimal) value, decimal, path);
      if (min == null) {
        min = v;
        max = v;
      } else if (v.compareTo(min) < 0) {
        min = v;
      } else if (v.compareTo(max) > 0) {
        max = v;
      }
      consumer.addBinary(Binary.fromConstantByteArray(toFixed(v.unscaledValue(), width)));
    }

    /** Big-endian two's complement, sign-extended to exactly {@code width} bytes. */
    static byte[] toFixed(BigInteger unscaled, int width) {
      byte[] minimal = unscaled.toByteArray();
      if (minimal.length == width) {
        return minimal;
      }
      byte[] out = new byte[width];
      byte pad = (byte) (unscaled.signum() < 0 ? -1 : 0);
      int offset = width - minimal.length;
      for (int i = 0; i < offset; i++) {
        out[i] = pad;
      }
      System.arraycopy(minimal, 0, out, offset, minimal.length);
      return out;
    }

    @Override
    Object minValue() {
      return min;
    }

    @Override
    Object maxValue() {
      return max;
    }
  }
}
