package dev.tributary.service.parse.protobuf;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.tributary.service.parse.EpochUnit;
import dev.tributary.service.parse.IsoTimestamps;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Chooses the {@link ValueConverter} of one declared column from the Protobuf field's type; the
 * mapping table is in docs/FORMATS.md (section Protobuf). Like Avro's schema resolution, only
 * widening is accepted (int32 into long or double, int64 into double), never narrowing (int64 into
 * int): the writer's type says values may not fit, so the mismatch is reported for the schema, not
 * discovered record by record.
 */
final class ValueConverters {
  /** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in epoch seconds: Delta's timestamp range. */
  private static final long MIN_SECOND = -62_135_596_800L;

  private static final long MAX_SECOND = 253_402_300_799L;
  private static final long MIN_EPOCH_DAY = LocalDate.of(1, 1, 1).toEpochDay();
  private static final long MAX_EPOCH_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

  /** As the JSON parser: a decimal given as text longer than this is refused before parsing. */
  private static final int MAX_DECIMAL_TEXT = 1000;

  private static final Set<String> WRAPPERS =
      Set.of(
          "google.protobuf.DoubleValue",
          "google.protobuf.FloatValue",
          "google.protobuf.Int64Value",
          "google.protobuf.UInt64Value",
          "google.protobuf.Int32Value",
          "google.protobuf.UInt32Value",
          "google.protobuf.BoolValue",
          "google.protobuf.StringValue",
          "google.protobuf.BytesValue");

  private static final List<DataType> CANDIDATES =
      List.of(
          PrimitiveType.STRING,
          PrimitiveType.INTEGER,
          PrimitiveType.LONG,
          PrimitiveType.DOUBLE,
          PrimitiveType.BOOLEAN,
          PrimitiveType.TIMESTAMP,
          PrimitiveType.DATE,
          new DecimalType(38, 0));

  private ValueConverters() {}

  /** A declared struct read from a message field; the message converter also prunes for rescue. */
  record Nested(MessageConverter converter) implements ValueConverter {
    @Override
    public Object convert(Object value) throws ProtobufValueException {
      return converter.toRow((Message) value);
    }
  }

  /**
   * The converter of {@code field} (of message {@code owner}) into {@code declared}.
   *
   * @throws ProtobufSchemaException when no column type can hold the field (repeated, map, bytes)
   */
  static ValueConverter of(
      String path,
      FieldDescriptor field,
      DataType declared,
      Map<String, EpochUnit> units,
      String owner) {
    if (field.isMapField() || field.isRepeated()) {
      throw new ProtobufSchemaException(
          ProtobufErrors.unsupportedField(
              path, owner, protoType(field), "Tributary has no array or map column type"));
    }
    ValueConverter c = singular(path, field, declared, units, owner);
    if (c == null) {
      return new ValueConverter.Misfit(
          ProtobufErrors.misfit(
              path, declared, owner, protoType(field), fits(path, field, units, owner)));
    }
    return c;
  }

  /** The converter, or null when the field's type cannot become the declared one. */
  private static ValueConverter singular(
      String path,
      FieldDescriptor field,
      DataType declared,
      Map<String, EpochUnit> units,
      String owner) {
    return switch (field.getJavaType()) {
      case MESSAGE -> message(path, field.getMessageType(), declared, units, owner);
      case ENUM ->
          declared == PrimitiveType.STRING ? v -> enumName(path, (EnumValueDescriptor) v) : null;
      case STRING -> text(path, declared);
      case BOOLEAN -> declared == PrimitiveType.BOOLEAN ? v -> v : null;
      case BYTE_STRING -> {
        if (declared == PrimitiveType.BINARY) {
          yield v -> ((ByteString) v).toByteArray();
        }
        throw new ProtobufSchemaException(
            ProtobufErrors.unsupportedField(
                path,
                owner,
                protoType(field),
                "bytes have no text form a string column could hold without guessing an encoding"));
      }
      case INT ->
          isUnsigned(field) ? unsignedInt(path, declared, units) : signedInt(path, declared, units);
      case LONG ->
          isUnsigned(field)
              ? unsignedLong(path, declared, units)
              : signedLong(path, declared, units);
      case FLOAT -> floating(path, declared, true);
      case DOUBLE -> floating(path, declared, false);
    };
  }

  private static ValueConverter message(
      String path, Descriptor type, DataType declared, Map<String, EpochUnit> units, String owner) {
    if (declared instanceof StructType struct) {
      // Any message, well-known ones too: a Timestamp declared as nested columns reads its
      // seconds and nanos fields like any other message.
      return new Nested(new MessageConverter(path, type, struct, units));
    }
    String name = type.getFullName();
    if (name.equals(WellKnownFiles.TIMESTAMP)) {
      if (declared != PrimitiveType.TIMESTAMP) {
        return null;
      }
      FieldDescriptor seconds = type.findFieldByNumber(1);
      FieldDescriptor nanos = type.findFieldByNumber(2);
      return v ->
          timestamp(
              path,
              (Long) ((Message) v).getField(seconds),
              (Integer) ((Message) v).getField(nanos));
    }
    if (name.equals(WellKnownFiles.DATE)) {
      if (declared != PrimitiveType.DATE) {
        return null;
      }
      FieldDescriptor year = type.findFieldByNumber(1);
      FieldDescriptor month = type.findFieldByNumber(2);
      FieldDescriptor day = type.findFieldByNumber(3);
      return v -> {
        Message m = (Message) v;
        return date(
            path,
            (Integer) m.getField(year),
            (Integer) m.getField(month),
            (Integer) m.getField(day));
      };
    }
    if (WRAPPERS.contains(name)) {
      // A wrapper is a nullable primitive: unset is null (the message field's presence), set is
      // its value, converted as the primitive would be.
      FieldDescriptor value = type.findFieldByNumber(1);
      ValueConverter inner = singular(path, value, declared, units, owner);
      return inner == null ? null : v -> inner.convert(((Message) v).getField(value));
    }
    return null;
  }

  private static ValueConverter text(String path, DataType declared) {
    if (declared == PrimitiveType.STRING) {
      return v -> v;
    }
    if (declared == PrimitiveType.TIMESTAMP) {
      return v -> {
        String s = (String) v;
        Instant t = IsoTimestamps.parseTimestamp(s);
        if (t == null) {
          throw new ProtobufValueException(ProtobufErrors.invalidText(path, declared, s));
        }
        if (t.getEpochSecond() < MIN_SECOND || t.getEpochSecond() > MAX_SECOND) {
          throw new ProtobufValueException(ProtobufErrors.timestampTextOutOfRange(path, s));
        }
        return t;
      };
    }
    if (declared == PrimitiveType.DATE) {
      return v -> {
        String s = (String) v;
        LocalDate d = IsoTimestamps.parseDate(s);
        if (d == null || d.getYear() < 1) {
          throw new ProtobufValueException(ProtobufErrors.invalidText(path, declared, s));
        }
        return d;
      };
    }
    if (declared instanceof DecimalType d) {
      return v -> {
        String s = (String) v;
        if (s.length() > MAX_DECIMAL_TEXT) {
          throw new ProtobufValueException(ProtobufErrors.invalidText(path, declared, s));
        }
        try {
          return fit(path, d, new BigDecimal(s.trim()), s);
        } catch (NumberFormatException e) {
          throw new ProtobufValueException(ProtobufErrors.invalidText(path, declared, s));
        }
      };
    }
    return null;
  }

  private static ValueConverter signedInt(
      String path, DataType declared, Map<String, EpochUnit> units) {
    if (declared == PrimitiveType.INTEGER) {
      return v -> v;
    }
    if (declared == PrimitiveType.DATE) {
      return v -> epochDay(path, (Integer) v);
    }
    return widenedLong(path, declared, units, v -> (long) (Integer) v);
  }

  /** uint32/fixed32: protobuf-java hands them out as the int with the same bits. */
  private static ValueConverter unsignedInt(
      String path, DataType declared, Map<String, EpochUnit> units) {
    if (declared == PrimitiveType.INTEGER) {
      return v -> {
        int i = (Integer) v;
        if (i < 0) {
          throw new ProtobufValueException(
              ProtobufErrors.outOfRange(path, declared, Integer.toUnsignedString(i)));
        }
        return i;
      };
    }
    if (declared == PrimitiveType.DATE) {
      return v -> epochDay(path, Integer.toUnsignedLong((Integer) v));
    }
    return widenedLong(path, declared, units, v -> Integer.toUnsignedLong((Integer) v));
  }

  private static ValueConverter signedLong(
      String path, DataType declared, Map<String, EpochUnit> units) {
    if (declared == PrimitiveType.INTEGER || declared == PrimitiveType.DATE) {
      return null;
    }
    return widenedLong(path, declared, units, v -> (Long) v);
  }

  /** uint64/fixed64: only values up to Long.MAX_VALUE fit a long, a timestamp or a decimal here. */
  private static ValueConverter unsignedLong(
      String path, DataType declared, Map<String, EpochUnit> units) {
    if (declared == PrimitiveType.INTEGER || declared == PrimitiveType.DATE) {
      return null;
    }
    if (declared == PrimitiveType.DOUBLE) {
      return v -> {
        long l = (Long) v;
        return l >= 0 ? (double) l : Double.parseDouble(Long.toUnsignedString(l));
      };
    }
    if (declared instanceof DecimalType d) {
      return v -> {
        String s = Long.toUnsignedString((Long) v);
        return fit(path, d, new BigDecimal(s), s);
      };
    }
    return widenedLong(
        path,
        declared,
        units,
        v -> {
          long l = (Long) v;
          if (l < 0) {
            throw new ProtobufValueException(
                ProtobufErrors.outOfRange(path, declared, Long.toUnsignedString(l)));
          }
          return l;
        });
  }

  private interface LongOf {
    long of(Object v) throws ProtobufValueException;
  }

  /** An integer of the writer as a long, a double, a decimal or an epoch timestamp. */
  private static ValueConverter widenedLong(
      String path, DataType declared, Map<String, EpochUnit> units, LongOf of) {
    if (declared == PrimitiveType.LONG) {
      return v -> of.of(v);
    }
    if (declared == PrimitiveType.DOUBLE) {
      return v -> (double) of.of(v);
    }
    if (declared == PrimitiveType.TIMESTAMP) {
      EpochUnit unit = units.getOrDefault(path, EpochUnit.MILLIS);
      return v -> epoch(path, unit, of.of(v));
    }
    if (declared instanceof DecimalType d) {
      return v -> {
        long l = of.of(v);
        return fit(path, d, BigDecimal.valueOf(l), Long.toString(l));
      };
    }
    return null;
  }

  private static ValueConverter floating(String path, DataType declared, boolean isFloat) {
    if (declared == PrimitiveType.DOUBLE) {
      return isFloat ? v -> (double) (Float) v : v -> v;
    }
    if (declared instanceof DecimalType d) {
      // The shortest text that reads back as the same float/double: what the producer wrote as a
      // literal (12.5, not 12.5000000000000001), as the JSON parser sees a number token.
      return v -> {
        double x = isFloat ? (Float) v : (Double) v;
        if (Double.isNaN(x) || Double.isInfinite(x)) {
          throw new ProtobufValueException(ProtobufErrors.decimalNotFinite(path, d, x));
        }
        String s = isFloat ? Float.toString((Float) v) : Double.toString(x);
        return fit(path, d, new BigDecimal(s), s);
      };
    }
    return null;
  }

  private static boolean isUnsigned(FieldDescriptor f) {
    return switch (f.getType()) {
      case UINT32, FIXED32, UINT64, FIXED64 -> true;
      default -> false;
    };
  }

  private static String enumName(String path, EnumValueDescriptor v) throws ProtobufValueException {
    // An open (proto3) enum keeps numbers it does not define; protobuf-java invents a descriptor
    // for them, with index -1, whose name is no value of the enum.
    if (v.getIndex() < 0) {
      throw new ProtobufValueException(
          ProtobufErrors.unknownEnumValue(path, v.getType().getFullName(), v.getNumber()));
    }
    return v.getName();
  }

  private static Instant timestamp(String path, long seconds, int nanos)
      throws ProtobufValueException {
    if (seconds < MIN_SECOND || seconds > MAX_SECOND || nanos < 0 || nanos > 999_999_999) {
      throw new ProtobufValueException(ProtobufErrors.timestampOutOfRange(path, seconds, nanos));
    }
    return Instant.ofEpochSecond(seconds, nanos - nanos % 1000);
  }

  private static Instant epoch(String path, EpochUnit unit, long value)
      throws ProtobufValueException {
    long perSecond =
        switch (unit) {
          case SECONDS -> 1L;
          case MILLIS -> 1_000L;
          case MICROS -> 1_000_000L;
          case NANOS -> 1_000_000_000L;
        };
    long second = Math.floorDiv(value, perSecond);
    if (second < MIN_SECOND || second > MAX_SECOND) {
      throw new ProtobufValueException(ProtobufErrors.epochOutOfRange(path, unit, value));
    }
    long nanos = Math.floorMod(value, perSecond) * (1_000_000_000L / perSecond);
    return Instant.ofEpochSecond(second, nanos - nanos % 1000);
  }

  private static LocalDate date(String path, int year, int month, int day)
      throws ProtobufValueException {
    try {
      if (year >= 1 && year <= 9999) {
        return LocalDate.of(year, month, day);
      }
    } catch (DateTimeException e) {
      // month or day 0 (a partial google.type.Date) or out of range: reported below
    }
    throw new ProtobufValueException(ProtobufErrors.invalidDate(path, year, month, day));
  }

  private static LocalDate epochDay(String path, long days) throws ProtobufValueException {
    if (days < MIN_EPOCH_DAY || days > MAX_EPOCH_DAY) {
      throw new ProtobufValueException(ProtobufErrors.dateOutOfRange(path, days));
    }
    return LocalDate.ofEpochDay(days);
  }

  /** As the JSON parser's decimals: exact at the declared scale, or refused (never rounded). */
  private static BigDecimal fit(String path, DecimalType d, BigDecimal v, String text)
      throws ProtobufValueException {
    if (v.signum() == 0) {
      return BigDecimal.ZERO.setScale(d.scale());
    }
    if (v.precision() - v.scale() > d.precision() - d.scale()) {
      throw new ProtobufValueException(ProtobufErrors.decimalTooLarge(path, d, text));
    }
    BigDecimal stripped = v.stripTrailingZeros();
    if (stripped.scale() > d.scale()) {
      throw new ProtobufValueException(ProtobufErrors.decimalTooManyFractionDigits(path, d, text));
    }
    return stripped.setScale(d.scale());
  }

  /**
   * The writer's type as messages name it: int32, sfixed64, enum x.Status,
   * google.protobuf.Timestamp.
   */
  static String protoType(FieldDescriptor f) {
    String base =
        switch (f.getJavaType()) {
          case MESSAGE -> f.isMapField() ? "a map" : "message " + f.getMessageType().getFullName();
          case ENUM -> "enum " + f.getEnumType().getFullName();
          default -> f.getType().name().toLowerCase(Locale.ROOT);
        };
    return f.isRepeated() && !f.isMapField() ? "repeated " + base : base;
  }

  /** The declared types this field could be read as, for the misfit message. */
  private static List<String> fits(
      String path, FieldDescriptor field, Map<String, EpochUnit> units, String owner) {
    List<String> fits = new ArrayList<>();
    for (DataType candidate : CANDIDATES) {
      if (singular(path, field, candidate, units, owner) != null) {
        fits.add(
            candidate instanceof DecimalType
                ? "decimal(p,s)"
                : ProtobufErrors.declaredName(candidate));
      }
    }
    if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE && fits.isEmpty()) {
      fits.add("nested columns (" + path + ".<field>: type)");
    }
    return fits;
  }
}
