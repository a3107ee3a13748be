package dev.tributary.table.data;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Tells whether a row can be written to a table, before it is handed to a writer: a row the writer
 * would refuse fails the whole file (and the whole batch), whereas a row refused here can be set
 * aside alone (a pipeline sends it to its quarantine table).
 *
 * <p>What is checked is exactly what can make {@link PartitionedDataWriter#write} fail for a value
 * of the right Java class: a null in a non-nullable field; a timestamp or date outside the years
 * 0001-9999 (the range of Delta's and Spark's types; beyond it ISO-8601 needs a sign and
 * microseconds since the epoch overflow); a string with an unpaired UTF-16 surrogate (it has no
 * UTF-8 form, Java would silently write {@code ?}); a decimal that needs rounding or more digits
 * than its type; and, for partition columns, a value that cannot name a directory (see {@link
 * PartitionValues#segmentProblem}). Values of the wrong Java class are programming errors and are
 * left to the writer to report.
 *
 * <p>Immutable and thread-safe. The per-row cost is one pass over the row, plus one scan of each
 * string's characters.
 */
public final class RowChecks {
  /** The first instant of year 0001, UTC. */
  public static final Instant MIN_TIMESTAMP = Instant.parse("0001-01-01T00:00:00Z");

  /** The last microsecond of year 9999, UTC. */
  public static final Instant MAX_TIMESTAMP = Instant.parse("9999-12-31T23:59:59.999999Z");

  private static final LocalDate MIN_DATE = LocalDate.of(1, 1, 1);
  private static final LocalDate MAX_DATE = LocalDate.of(9999, 12, 31);

  /**
   * The longest partition directory (all {@code column=value/} segments) this writer lets a row
   * make: S3 keys are at most 1024 bytes, and the table's own prefix and the file name ({@code
   * part-00000-<uuid>.zstd.parquet}, about 60 bytes) need the rest.
   */
  public static final int MAX_PARTITION_DIRECTORY_BYTES = 768;

  private final Column[] columns;
  private final int partitionCount;
  // Per partition column, the last value found writable: consecutive rows mostly share their
  // partition, and serializing and escaping a value per row would cost more than the check is
  // worth. Racing writes are benign: every value ever stored here was checked.
  private final Writable[] lastWritable;

  private record Column(int index, StructField field, boolean partition, int slot) {}

  /** A partition value found writable and the bytes of its directory segment, '/' included. */
  private record Writable(Object value, int bytes) {}

  private RowChecks(Column[] columns, int partitionCount) {
    this.columns = columns;
    this.partitionCount = partitionCount;
    this.lastWritable = new Writable[partitionCount];
  }

  /**
   * The checks of rows of {@code schema} written with {@code partitionColumns}.
   *
   * @throws IllegalArgumentException if the partition columns do not fit the schema (as {@link
   *     DataFiles#checkPartitionColumns})
   */
  public static RowChecks forTable(StructType schema, List<String> partitionColumns) {
    PartitionValues.checkPartitionColumns(schema, partitionColumns);
    List<Column> out = new ArrayList<>();
    int slots = 0;
    for (int i = 0; i < schema.size(); i++) {
      StructField f = schema.fields().get(i);
      boolean partition = partitionColumns.contains(f.name());
      if (partition || needsCheck(f)) {
        out.add(new Column(i, f, partition, partition ? slots++ : -1));
      }
    }
    return new RowChecks(out.toArray(Column[]::new), slots);
  }

  private static boolean needsCheck(StructField f) {
    DataType t = f.type();
    return !f.nullable()
        || t == PrimitiveType.STRING
        || t == PrimitiveType.TIMESTAMP
        || t == PrimitiveType.DATE
        || t instanceof DecimalType
        || t instanceof StructType
        || t instanceof ArrayType
        || t instanceof MapType;
  }

  /**
   * Why the row cannot be written, naming the column (dotted path for nested fields), or null when
   * it can. The row is aligned with the full table schema.
   */
  public String problem(Object[] row) {
    int directoryBytes = 0;
    for (Column c : columns) {
      Object value = row[c.index];
      String problem;
      Writable last = c.partition ? lastWritable[c.slot] : null;
      if (!c.partition) {
        problem = valueProblem(c.field.name(), c.field.type(), value);
      } else if (last != null && value != null && value.equals(last.value())) {
        problem = null;
        directoryBytes += last.bytes();
      } else {
        problem = partitionValueProblem(c.field.name(), c.field.type(), value);
        if (problem == null && value != null) {
          int bytes =
              PartitionValues.segmentBytes(
                      c.field.name(), PartitionValues.serialize(value, c.field.type()))
                  + 1;
          lastWritable[c.slot] = new Writable(value, bytes);
          directoryBytes += bytes;
        } else {
          directoryBytes +=
              c.field.name().length() + 28; // name, '=', __HIVE_DEFAULT_PARTITION__, '/'
        }
      }
      if (problem == null && value == null && !c.field.nullable()) {
        problem = DataErrors.nullInRequiredColumn(c.field.name());
      }
      if (problem != null) {
        return problem;
      }
    }
    if (partitionCount > 1 && directoryBytes > MAX_PARTITION_DIRECTORY_BYTES) {
      return DataErrors.partitionDirectoryTooLong(directoryBytes, MAX_PARTITION_DIRECTORY_BYTES);
    }
    return null;
  }

  /**
   * Why {@code value} cannot be stored in a data file as a value of {@code type} (see the class
   * comment), or null when it can. Null values are fine here: nullability is the schema's concern.
   *
   * @param path the column (or dotted field path) named in the message
   */
  public static String valueProblem(String path, DataType type, Object value) {
    if (value == null) {
      return null;
    }
    if (type == PrimitiveType.STRING && value instanceof String s) {
      int at = unpairedSurrogate(s);
      return at < 0 ? null : DataErrors.unpairedSurrogate(path, at);
    }
    if (type == PrimitiveType.TIMESTAMP && value instanceof Instant t) {
      return t.isBefore(MIN_TIMESTAMP) || t.isAfter(MAX_TIMESTAMP)
          ? DataErrors.timestampOutOfRange(path, t)
          : null;
    }
    if (type == PrimitiveType.DATE && value instanceof LocalDate d) {
      return d.isBefore(MIN_DATE) || d.isAfter(MAX_DATE)
          ? DataErrors.dateOutOfRange(path, d)
          : null;
    }
    if (type instanceof DecimalType d && value instanceof BigDecimal v) {
      return DecimalFieldWriters.fits(v, d) ? null : DataErrors.decimalDoesNotFitColumn(path, d, v);
    }
    if (type instanceof ArrayType array && value instanceof List<?> values) {
      return elementsProblem(path + ".element", array.elementType(), array.containsNull(), values);
    }
    if (type instanceof MapType map && value instanceof Map<?, ?> entries) {
      String problem = elementsProblem(path + ".key", map.keyType(), false, entries.keySet());
      return problem != null
          ? problem
          : elementsProblem(
              path + ".value", map.valueType(), map.valueContainsNull(), entries.values());
    }
    if (type instanceof StructType struct
        && value instanceof Object[] values
        && values.length == struct.size()) {
      for (int i = 0; i < values.length; i++) {
        StructField f = struct.fields().get(i);
        String childPath = path + "." + f.name();
        String problem = valueProblem(childPath, f.type(), values[i]);
        if (problem == null && values[i] == null && !f.nullable()) {
          problem = DataErrors.nullInRequiredColumn(childPath);
        }
        if (problem != null) {
          return problem;
        }
      }
    }
    return null;
  }

  /** The first problem of the elements (keys, values) of a list or map, or null. */
  private static String elementsProblem(
      String path, DataType type, boolean nullable, Collection<?> values) {
    for (Object v : values) {
      String problem =
          v == null && !nullable
              ? DataErrors.nullInRequiredColumn(path)
              : valueProblem(path, type, v);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  /**
   * Why {@code value} cannot be the value of partition column {@code column}: any {@link
   * #valueProblem}, or a directory name it cannot make. Null when it can.
   */
  public static String partitionValueProblem(String column, DataType type, Object value) {
    String problem = valueProblem(column, type, value);
    if (problem != null || value == null) {
      return problem;
    }
    String serialized;
    try {
      serialized = PartitionValues.serialize(value, type);
    } catch (ClassCastException | IllegalArgumentException e) {
      return null; // a programming error (wrong class or type): the writer reports it
    }
    return PartitionValues.segmentProblem(column, serialized);
  }

  /** Index of the first unpaired surrogate, or -1. The common case is one cheap pass. */
  static int unpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
        if (Character.isHighSurrogate(c)
            && i + 1 < s.length()
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }
}
