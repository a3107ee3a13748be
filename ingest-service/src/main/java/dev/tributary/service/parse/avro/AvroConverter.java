package dev.tributary.service.parse.avro;

import dev.tributary.service.parse.EpochUnit;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;

/**
 * Turns one value read by Avro's generic reader (of the projected reader schema) into the table's
 * Java representation of the declared type: the same classes and the same exactness rules as JSON's
 * {@code FieldReader} (timestamps truncated to microseconds, decimals exact at the declared scale,
 * years 0001-9999). Compiled once per writer schema: picking the conversion is schema work, done
 * before the first record. A writer type that cannot become the declared type compiles to a
 * converter that quarantines every non-null value it meets (a null in a union still fits).
 */
abstract class AvroConverter {
  final String path;

  AvroConverter(String path) {
    this.path = path;
  }

  /** Converts a non-null value. */
  abstract Object convertNonNull(Object value);

  final Object convert(Object value) {
    return value == null ? null : convertNonNull(value);
  }

  /**
   * The converter from values of reader schema {@code s} to {@code declared}.
   *
   * @param id the writer schema id, for messages
   * @param units epoch units of timestamp columns by path (plain longs; absent = milliseconds)
   */
  static AvroConverter of(
      int id, String path, Schema s, DataType declared, Map<String, EpochUnit> units) {
    if (s.getType() == Schema.Type.UNION) {
      List<Schema> nonNull =
          s.getTypes().stream().filter(b -> b.getType() != Schema.Type.NULL).toList();
      if (nonNull.size() == 1) {
        return of(
            id,
            path,
            nonNull.get(0),
            declared,
            units); // [null, T]: nulls never reach convertNonNull
      }
      List<AvroConverter> branches = new ArrayList<>();
      for (Schema b : s.getTypes()) {
        branches.add(b.getType() == Schema.Type.NULL ? null : of(id, path, b, declared, units));
      }
      return new Union(path, s, branches);
    }
    if (declared instanceof StructType struct) {
      return s.getType() == Schema.Type.RECORD
          ? new Record(id, path, s, struct, units)
          : misfit(id, path, s, declared);
    }
    if (declared instanceof DecimalType d) {
      return decimal(id, path, s, d);
    }
    if (!(declared instanceof PrimitiveType primitive)) {
      return misfit(id, path, s, declared);
    }
    LogicalType logical = s.getLogicalType();
    Schema.Type t = s.getType();
    return switch (primitive) {
      case FLOAT ->
          t == Schema.Type.FLOAT ? new Converter(path, v -> v) : misfit(id, path, s, declared);
      case BYTE, SHORT, TIMESTAMP_NTZ -> misfit(id, path, s, declared);
      case STRING ->
          switch (t) {
            case STRING, ENUM -> new Converter(path, v -> v.toString());
            case BYTES -> new Converter(path, v -> utf8(path, (ByteBuffer) v));
            default -> misfit(id, path, s, declared);
          };
      case INTEGER ->
          t == Schema.Type.INT ? new Converter(path, v -> v) : misfit(id, path, s, declared);
      case LONG ->
          switch (t) {
            case INT -> new Converter(path, v -> (long) (Integer) v);
            case LONG -> new Converter(path, v -> v);
            default -> misfit(id, path, s, declared);
          };
      case DOUBLE ->
          switch (t) {
            case INT, LONG, FLOAT, DOUBLE -> new Converter(path, v -> ((Number) v).doubleValue());
            default -> misfit(id, path, s, declared);
          };
      case BOOLEAN ->
          t == Schema.Type.BOOLEAN ? new Converter(path, v -> v) : misfit(id, path, s, declared);
      case TIMESTAMP -> {
        if (t != Schema.Type.LONG && t != Schema.Type.INT) {
          yield misfit(id, path, s, declared);
        }
        EpochUnit unit = epochUnit(logical, units.getOrDefault(path, EpochUnit.MILLIS));
        yield unit == null
            ? misfit(id, path, s, declared)
            : new Converter(path, v -> instant(path, unit, v));
      }
      case DATE ->
          t == Schema.Type.INT && logical instanceof LogicalTypes.Date
              ? new Converter(path, v -> date(path, (Integer) v))
              : misfit(id, path, s, declared);
      case BINARY -> misfit(id, path, s, declared);
    };
  }

  /**
   * The unit of a long/int read as a timestamp: its logical type's, else the declared one; null:
   * not a time.
   */
  private static EpochUnit epochUnit(LogicalType logical, EpochUnit declared) {
    if (logical == null) {
      return declared;
    }
    return switch (logical.getName()) {
      case "timestamp-millis", "local-timestamp-millis" -> EpochUnit.MILLIS;
      case "timestamp-micros", "local-timestamp-micros" -> EpochUnit.MICROS;
      case "timestamp-nanos", "local-timestamp-nanos" -> EpochUnit.NANOS;
      default -> null; // time-millis, date, ...: not an instant
    };
  }

  private static AvroConverter decimal(int id, String path, Schema s, DecimalType d) {
    if (s.getLogicalType() instanceof LogicalTypes.Decimal wd) {
      int writerScale = wd.getScale();
      if (s.getType() == Schema.Type.BYTES) {
        return new Converter(
            path,
            v -> fit(path, d, new BigDecimal(new BigInteger(bytes((ByteBuffer) v)), writerScale)));
      }
      if (s.getType() == Schema.Type.FIXED) {
        return new Converter(
            path,
            v ->
                fit(
                    path,
                    d,
                    new BigDecimal(new BigInteger(((GenericFixed) v).bytes()), writerScale)));
      }
    }
    if (s.getType() == Schema.Type.INT || s.getType() == Schema.Type.LONG) {
      return new Converter(path, v -> fit(path, d, BigDecimal.valueOf(((Number) v).longValue())));
    }
    return misfit(id, path, s, d);
  }

  /**
   * Exact at the declared scale, or quarantined: rounding money silently is worse (as JSON's
   * reader).
   */
  private static BigDecimal fit(String path, DecimalType d, BigDecimal v) {
    if (v.signum() == 0) {
      return BigDecimal.ZERO.setScale(d.scale());
    }
    if (v.precision() - v.scale() > d.precision() - d.scale()) {
      throw AvroErrors.decimalTooLarge(path, d, v);
    }
    BigDecimal stripped = v.stripTrailingZeros();
    if (stripped.scale() > d.scale()) {
      throw AvroErrors.decimalTooManyFractionDigits(path, d, v);
    }
    return stripped.setScale(d.scale());
  }

  private static Instant instant(String path, EpochUnit unit, Object v) {
    long value = ((Number) v).longValue();
    Instant instant = unit.toInstant(value);
    if (instant == null) {
      throw AvroErrors.outOfRange(path, "epoch " + unit.words(), value);
    }
    return instant;
  }

  private static LocalDate date(String path, int days) {
    LocalDate date = LocalDate.ofEpochDay(days);
    if (date.getYear() < 1 || date.getYear() > 9999) {
      throw AvroErrors.outOfRange(path, "date (days since 1970-01-01)", days);
    }
    return date;
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static String utf8(String path, ByteBuffer b) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(b.duplicate())
          .toString();
    } catch (CharacterCodingException e) {
      throw AvroErrors.notUtf8(path);
    }
  }

  private static AvroConverter misfit(int id, String path, Schema s, DataType declared) {
    AvroMisfit error = AvroErrors.misfit(id, path, s, declared);
    return new Converter(
        path,
        v -> {
          throw error; // stackless and immutable: one instance serves every record of this schema
          // id
        });
  }

  /** A conversion of one kind of value. */
  private static final class Converter extends AvroConverter {
    private final Function<Object, Object> f;

    Converter(String path, Function<Object, Object> f) {
      super(path);
      this.f = f;
    }

    @Override
    Object convertNonNull(Object value) {
      return f.apply(value);
    }
  }

  /** A union of several non-null branches: the value's branch picks the conversion. */
  private static final class Union extends AvroConverter {
    private final Schema union;
    private final AvroConverter[] branches;

    Union(String path, Schema union, List<AvroConverter> branches) {
      super(path);
      this.union = union;
      this.branches = branches.toArray(new AvroConverter[0]);
    }

    @Override
    Object convertNonNull(Object value) {
      return branches[GenericData.get().resolveUnion(union, value)].convertNonNull(value);
    }
  }

  /**
   * A record of the projected reader schema into an {@code Object[]} aligned with the declared
   * struct; declared fields the writer lacks stay null.
   */
  static final class Record extends AvroConverter {
    private final int width;
    private final int[] targets;
    private final AvroConverter[] fields;

    Record(int id, String path, Schema reader, StructType declared, Map<String, EpochUnit> units) {
      super(path);
      this.width = declared.size();
      List<Schema.Field> readerFields = reader.getFields();
      this.targets = new int[readerFields.size()];
      this.fields = new AvroConverter[readerFields.size()];
      for (int j = 0; j < readerFields.size(); j++) {
        Schema.Field f = readerFields.get(j);
        int i = declared.indexOf(f.name());
        StructField column = declared.fields().get(i);
        targets[j] = i;
        fields[j] =
            of(
                id,
                path.isEmpty() ? f.name() : path + "." + f.name(),
                f.schema(),
                column.type(),
                units);
      }
    }

    @Override
    Object convertNonNull(Object value) {
      IndexedRecord record = (IndexedRecord) value;
      Object[] row = new Object[width];
      for (int j = 0; j < fields.length; j++) {
        row[targets[j]] = fields[j].convert(record.get(j));
      }
      return row;
    }
  }
}
