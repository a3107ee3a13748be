package dev.tributary.service.parse;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * Reads the value of one declared field from the parser positioned on its first token (never {@code
 * VALUE_NULL}: the struct reader handles nulls). Throws {@link BadRecordException} when the JSON
 * value cannot become the declared type; see docs/EXPRESSIONS.md for the coercion table.
 */
abstract class FieldReader {
  final String path;
  final DataType type;

  FieldReader(String path, DataType type) {
    this.path = path;
    this.type = type;
  }

  abstract Object read(JsonParser p, JsonToken t) throws IOException;

  /**
   * The reader for a field of the given type, whose dotted path is used in messages; {@code units}
   * holds the epoch unit of timestamp fields by dotted path (absent: milliseconds).
   */
  static FieldReader of(String path, DataType type, Map<String, EpochUnit> units) {
    if (type instanceof StructType s) {
      return new StructReader(path, s, units);
    }
    if (type instanceof DecimalType d) {
      return new DecimalReader(path, d);
    }
    if (!(type instanceof PrimitiveType primitive)) {
      throw new IllegalArgumentException(
          "field '" + path + "': " + type.deltaName() + " columns cannot be parsed from JSON");
    }
    return switch (primitive) {
      case STRING -> new StringReader(path);
      case BYTE -> new SmallIntReader(path, PrimitiveType.BYTE, Byte.MIN_VALUE, Byte.MAX_VALUE);
      case SHORT -> new SmallIntReader(path, PrimitiveType.SHORT, Short.MIN_VALUE, Short.MAX_VALUE);
      case FLOAT -> new FloatReader(path);
      case TIMESTAMP_NTZ -> new TimestampNtzReader(path);
      case INTEGER -> new IntReader(path);
      case LONG -> new LongReader(path);
      case DOUBLE -> new DoubleReader(path);
      case BOOLEAN -> new BooleanReader(path);
      case TIMESTAMP -> new TimestampReader(path, units.getOrDefault(path, EpochUnit.MILLIS));
      case DATE -> new DateReader(path);
      case BINARY ->
          throw new IllegalArgumentException(
              "field '" + path + "': binary columns cannot be parsed from JSON");
    };
  }

  /** Strings only from JSON strings: a number where text was declared is a producer bug. */
  private static final class StringReader extends FieldReader {
    StringReader(String path) {
      super(path, PrimitiveType.STRING);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t != JsonToken.VALUE_STRING) {
        throw RecordErrors.wrongType(path, type, p, t);
      }
      return p.getText();
    }
  }

  private static final class IntReader extends FieldReader {
    IntReader(String path) {
      super(path, PrimitiveType.INTEGER);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_NUMBER_INT) {
        if (p.getNumberType() != JsonParser.NumberType.INT) {
          throw RecordErrors.outOfRange(path, type, p);
        }
        return p.getIntValue();
      }
      if (t == JsonToken.VALUE_NUMBER_FLOAT) {
        long v = integralValue(p, this, Integer.MIN_VALUE, Integer.MAX_VALUE);
        return (int) v;
      }
      throw RecordErrors.wrongType(path, type, p, t);
    }
  }

  /** byte and short: JSON whole numbers in the type's range, as Byte and Short. */
  private static final class SmallIntReader extends FieldReader {
    private final long min;
    private final long max;

    SmallIntReader(String path, PrimitiveType type, long min, long max) {
      super(path, type);
      this.min = min;
      this.max = max;
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      long v;
      if (t == JsonToken.VALUE_NUMBER_INT) {
        if (p.getNumberType() != JsonParser.NumberType.INT
            || p.getIntValue() < min
            || p.getIntValue() > max) {
          throw RecordErrors.outOfRange(path, type, p);
        }
        v = p.getIntValue();
      } else if (t == JsonToken.VALUE_NUMBER_FLOAT) {
        v = integralValue(p, this, min, max);
      } else {
        throw RecordErrors.wrongType(path, type, p, t);
      }
      return type == PrimitiveType.BYTE ? (Object) (byte) v : (Object) (short) v;
    }
  }

  private static final class FloatReader extends FieldReader {
    FloatReader(String path) {
      super(path, PrimitiveType.FLOAT);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
        float v = p.getFloatValue();
        if (Float.isInfinite(v)) {
          throw RecordErrors.outOfRange(path, type, p);
        }
        return v;
      }
      throw RecordErrors.wrongType(path, type, p, t);
    }
  }

  /**
   * timestamp_ntz: an ISO-8601 local date-time string ({@code 2026-01-01T10:00:00.123456}, or with
   * a space for the T), no zone: the wall-clock time as written, like Spark's TIMESTAMP_NTZ.
   */
  private static final class TimestampNtzReader extends FieldReader {
    TimestampNtzReader(String path) {
      super(path, PrimitiveType.TIMESTAMP_NTZ);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t != JsonToken.VALUE_STRING) {
        throw RecordErrors.wrongType(path, type, p, t);
      }
      String text = p.getText();
      try {
        LocalDateTime v = LocalDateTime.parse(text.replace(' ', 'T'));
        if (v.getYear() < 1 || v.getYear() > 9999) {
          throw RecordErrors.timestampTextOutOfRange(path, text);
        }
        return v.truncatedTo(ChronoUnit.MICROS);
      } catch (DateTimeParseException e) {
        throw RecordErrors.wrongType(path, type, p, t);
      }
    }
  }

  private static final class LongReader extends FieldReader {
    LongReader(String path) {
      super(path, PrimitiveType.LONG);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_NUMBER_INT) {
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
          throw RecordErrors.outOfRange(path, type, p);
        }
        return p.getLongValue();
      }
      if (t == JsonToken.VALUE_NUMBER_FLOAT) {
        return integralValue(p, this, Long.MIN_VALUE, Long.MAX_VALUE);
      }
      throw RecordErrors.wrongType(path, type, p, t);
    }
  }

  /**
   * A JSON float accepted for an integer column only when it is a whole number in range ({@code
   * 3.0}, {@code 1e3}): some producers (Python's json, JavaScript after arithmetic) write whole
   * numbers that way, and accepting them loses nothing.
   */
  private static long integralValue(JsonParser p, FieldReader r, long min, long max)
      throws IOException {
    BigDecimal d = p.getDecimalValue();
    if (d.signum() == 0) {
      return 0;
    }
    if (d.precision() - d.scale() > 19) {
      throw RecordErrors.outOfRange(r.path, r.type, p);
    }
    BigDecimal whole = d.stripTrailingZeros();
    if (whole.scale() > 0) {
      throw RecordErrors.notIntegral(r.path, r.type, p);
    }
    if (whole.compareTo(BigDecimal.valueOf(min)) < 0
        || whole.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw RecordErrors.outOfRange(r.path, r.type, p);
    }
    return whole.longValueExact();
  }

  private static final class DoubleReader extends FieldReader {
    DoubleReader(String path) {
      super(path, PrimitiveType.DOUBLE);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
        double v = p.getDoubleValue();
        if (Double.isInfinite(v)) {
          throw RecordErrors.outOfRange(path, type, p);
        }
        return v;
      }
      throw RecordErrors.wrongType(path, type, p, t);
    }
  }

  private static final class BooleanReader extends FieldReader {
    BooleanReader(String path) {
      super(path, PrimitiveType.BOOLEAN);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_TRUE) {
        return Boolean.TRUE;
      }
      if (t == JsonToken.VALUE_FALSE) {
        return Boolean.FALSE;
      }
      throw RecordErrors.wrongType(path, type, p, t);
    }
  }

  /**
   * ISO-8601 strings, or integers in the column's epoch unit; both only inside the years 0001-9999
   * (Delta's range: beyond it ISO-8601 needs a sign, and a nanosecond epoch read as milliseconds
   * would overflow microseconds).
   */
  private static final class TimestampReader extends FieldReader {
    private final EpochUnit unit;

    TimestampReader(String path, EpochUnit unit) {
      super(path, PrimitiveType.TIMESTAMP);
      this.unit = unit;
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t == JsonToken.VALUE_STRING) {
        Instant v =
            IsoTimestamps.parseTimestamp(
                p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        if (v == null) {
          throw RecordErrors.invalidText(path, type, unit, p.getText());
        }
        if (v.getEpochSecond() < EpochUnit.MIN_SECOND
            || v.getEpochSecond() > EpochUnit.MAX_SECOND) {
          throw RecordErrors.timestampTextOutOfRange(path, p.getText());
        }
        return v;
      }
      if (t == JsonToken.VALUE_NUMBER_INT) {
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
          throw RecordErrors.epochOutOfRange(path, unit, p.getText());
        }
        long value = p.getLongValue();
        Instant v = unit.toInstant(value);
        if (v == null) {
          throw RecordErrors.epochOutOfRange(path, unit, p.getText(), value);
        }
        return v;
      }
      throw RecordErrors.wrongType(path, type, unit, p, t);
    }
  }

  private static final class DateReader extends FieldReader {
    DateReader(String path) {
      super(path, PrimitiveType.DATE);
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      if (t != JsonToken.VALUE_STRING) {
        throw RecordErrors.wrongType(path, type, p, t);
      }
      LocalDate v =
          IsoTimestamps.parseDate(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
      if (v == null) {
        throw RecordErrors.invalidText(path, type, p.getText());
      }
      if (v.getYear() < 1) {
        throw RecordErrors.dateOutOfRange(path, p.getText());
      }
      return v;
    }
  }

  /**
   * Decimals from JSON numbers or numeric strings (money is often sent as a string to survive
   * JavaScript doubles), stored only when exact at the declared scale: rounding money silently is
   * worse than quarantining the record.
   */
  private static final class DecimalReader extends FieldReader {
    /** Jackson's default limit of a number token's length, applied to decimals given as strings. */
    private static final int MAX_DECIMAL_TEXT = 1000;

    private final DecimalType decimal;

    DecimalReader(String path, DecimalType decimal) {
      super(path, decimal);
      this.decimal = decimal;
    }

    @Override
    Object read(JsonParser p, JsonToken t) throws IOException {
      BigDecimal v;
      if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
        v = p.getDecimalValue();
      } else if (t == JsonToken.VALUE_STRING) {
        // Jackson bounds numeric tokens (StreamReadConstraints); a decimal written as a string is
        // bounded here, before BigDecimal's parse, whose cost grows faster than the text.
        if (p.getTextLength() > MAX_DECIMAL_TEXT) {
          throw RecordErrors.decimalTextTooLong(path, type, p.getTextLength(), MAX_DECIMAL_TEXT);
        }
        try {
          v = new BigDecimal(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        } catch (NumberFormatException e) {
          throw RecordErrors.invalidText(path, type, p.getText());
        }
      } else {
        throw RecordErrors.wrongType(path, type, p, t);
      }
      return fit(v, p);
    }

    /** The text for messages is read from the parser only on failure: no String per value. */
    private BigDecimal fit(BigDecimal v, JsonParser p) throws IOException {
      if (v.signum() == 0) {
        return BigDecimal.ZERO.setScale(decimal.scale());
      }
      // Checked on precision/scale before any setScale: 1e999999999 must not expand to a billion
      // digits.
      if (v.precision() - v.scale() > decimal.precision() - decimal.scale()) {
        throw RecordErrors.decimalTooLarge(path, decimal, p.getText());
      }
      BigDecimal stripped = v.stripTrailingZeros();
      if (stripped.scale() > decimal.scale()) {
        throw RecordErrors.decimalTooManyFractionDigits(path, decimal, p.getText());
      }
      return stripped.setScale(decimal.scale());
    }
  }
}
