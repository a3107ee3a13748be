package dev.tributary.table.data;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * Partition values as the Delta protocol serializes them ("Partition Value Serialization") and the
 * hive-style directory names they produce.
 *
 * <p>Timestamps are written as ISO-8601 in UTC with microseconds and a {@code Z} ({@code
 * 2026-01-01T00:00:00.000000Z}), as Spark's Delta writer does by default ({@code
 * utcTimestampPartitionValues}): the protocol reads a timestamp partition value without a zone in
 * the reader's session time zone, so a zone-less value would mean a different instant to a reader
 * outside UTC. Reading also accepts the zone-less form {@code yyyy-MM-dd HH:mm:ss[.fraction]} that
 * older versions of this writer produced (always in UTC, so it is read as UTC) and any ISO-8601
 * offset. A timestamp_ntz is its wall-clock time without a zone ({@code 2026-01-01
 * 00:00:00.000000}), as Spark writes it. An empty string is null for every type, as the protocol
 * says, so an empty string value is written as null.
 *
 * <p>A value can make a directory name no file system or object store accepts: a NUL character
 * (which Spark does not escape either), or a {@code column=value} segment longer than {@value
 * #MAX_SEGMENT_BYTES} bytes after escaping (the file-name limit of common file systems). {@link
 * #segmentProblem} reports both before anything is written, so the row can be refused alone.
 */
final class PartitionValues {
  /** Directory name Delta and Hive use for a null partition value. */
  static final String NULL_DIRECTORY = "__HIVE_DEFAULT_PARTITION__";

  /**
   * The longest {@code column=value} directory name, in UTF-8 bytes (NAME_MAX of ext4, XFS, APFS).
   */
  static final int MAX_SEGMENT_BYTES = 255;

  private static final DateTimeFormatter TIMESTAMP_WRITE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  /** A timestamp_ntz as Spark writes it: the wall-clock time, no zone, microseconds. */
  private static final DateTimeFormatter TIMESTAMP_NTZ_WRITE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

  private static final DateTimeFormatter TIMESTAMP_READ =
      new DateTimeFormatterBuilder()
          .appendPattern("yyyy-MM-dd HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .toFormatter();

  /**
   * Characters Spark and Delta escape in partition directory names (as %XX): control characters and
   * the characters with a meaning in paths, URIs or globs. Spark adds a few more on Windows only;
   * we write the portable set so a path looks the same wherever it was written.
   */
  private static final BitSet ESCAPED = new BitSet(128);

  static {
    for (char c = 0x01; c < 0x20; c++) {
      ESCAPED.set(c);
    }
    for (char c : "\"#%'*/:=?\\\u007F{[]^".toCharArray()) {
      ESCAPED.set(c);
    }
  }

  private PartitionValues() {}

  /**
   * Checks a partition-by list against a schema: every column known, listed once, of a
   * partitionable type, and at least one column left for the data files.
   */
  static void checkPartitionColumns(StructType schema, List<String> partitionColumns) {
    for (int i = 0; i < partitionColumns.size(); i++) {
      String column = partitionColumns.get(i);
      int index = schema.indexOf(column);
      if (index < 0) {
        throw new IllegalArgumentException(
            DataErrors.unknownPartitionColumn(column, schema.fieldNames()));
      }
      if (partitionColumns.indexOf(column) != i) {
        throw new IllegalArgumentException(DataErrors.duplicatePartitionColumn(column));
      }
      checkPartitionable(column, schema.fields().get(index).type());
    }
    if (!partitionColumns.isEmpty() && partitionColumns.size() == schema.size()) {
      throw new IllegalArgumentException(DataErrors.noDataColumns(partitionColumns));
    }
  }

  /** Checks that a column can be a partition column; throws with a message naming it if not. */
  static void checkPartitionable(String column, DataType type) {
    if (!(type instanceof PrimitiveType || type instanceof DecimalType)
        || type == PrimitiveType.BINARY) {
      throw new IllegalArgumentException(DataErrors.unsupportedPartitionType(column, type));
    }
  }

  /** Serializes a value of the given type; null (and the empty string) serialize to null. */
  static String serialize(Object value, DataType type) {
    if (value == null) {
      return null;
    }
    if (type instanceof DecimalType) {
      return ((BigDecimal) value).toPlainString();
    }
    if (!(type instanceof PrimitiveType primitive)) {
      throw new IllegalArgumentException(DataErrors.unsupportedPartitionType("?", type));
    }
    return switch (primitive) {
      case STRING -> {
        String s = (String) value;
        yield s.isEmpty() ? null : s;
      }
      case BYTE -> Byte.toString((Byte) value);
      case SHORT -> Short.toString((Short) value);
      case INTEGER -> Integer.toString((Integer) value);
      case LONG -> Long.toString((Long) value);
      case FLOAT -> Float.toString((Float) value);
      case DOUBLE -> Double.toString((Double) value);
      case BOOLEAN -> Boolean.toString((Boolean) value);
      case DATE -> ((LocalDate) value).toString();
      case TIMESTAMP -> serializeTimestamp((Instant) value);
      case TIMESTAMP_NTZ -> TIMESTAMP_NTZ_WRITE.format((LocalDateTime) value);
      case BINARY ->
          throw new IllegalArgumentException(DataErrors.unsupportedPartitionType("?", type));
    };
  }

  private static String serializeTimestamp(Instant instant) {
    return TIMESTAMP_WRITE.format(instant);
  }

  /**
   * Parses a serialized partition value back to the Java value of its type.
   *
   * @throws IllegalArgumentException if the text is not a valid value of the type
   */
  static Object parse(String text, DataType type) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      if (type instanceof DecimalType decimal) {
        BigDecimal value = new BigDecimal(text);
        return value.setScale(decimal.scale(), RoundingMode.UNNECESSARY);
      }
      if (!(type instanceof PrimitiveType primitive)) {
        throw new IllegalArgumentException(
            DataErrors.badPartitionValue(text, type, "not a partitionable type"));
      }
      return switch (primitive) {
        case STRING -> text;
        case BYTE -> Byte.parseByte(text);
        case SHORT -> Short.parseShort(text);
        case INTEGER -> Integer.parseInt(text);
        case LONG -> Long.parseLong(text);
        case FLOAT -> Float.parseFloat(text);
        case DOUBLE -> Double.parseDouble(text);
        case BOOLEAN -> parseBoolean(text, type);
        case DATE -> LocalDate.parse(text);
        case TIMESTAMP -> parseTimestamp(text);
        case TIMESTAMP_NTZ -> parseTimestampNtz(text);
        case BINARY ->
            throw new IllegalArgumentException(
                DataErrors.badPartitionValue(
                    text, type, "binary partition values are not supported"));
      };
    } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
      throw new IllegalArgumentException(
          DataErrors.badPartitionValue(text, type, e.getMessage()), e);
    }
  }

  private static Boolean parseBoolean(String text, DataType type) {
    if (text.equalsIgnoreCase("true")) {
      return Boolean.TRUE;
    }
    if (text.equalsIgnoreCase("false")) {
      return Boolean.FALSE;
    }
    throw new IllegalArgumentException(
        DataErrors.badPartitionValue(text, type, "expected true or false"));
  }

  /**
   * A timestamp_ntz partition value; a bare date ({@code 2024-02-29}) is the midnight starting it:
   * the value of a file written while the column was a date, before it widened to timestamp_ntz.
   */
  private static LocalDateTime parseTimestampNtz(String text) {
    if (text.indexOf('T') > 0) {
      return LocalDateTime.parse(text);
    }
    if (text.indexOf(' ') < 0) {
      return LocalDate.parse(text).atStartOfDay();
    }
    return LocalDateTime.parse(text, TIMESTAMP_READ);
  }

  private static Instant parseTimestamp(String text) {
    if (text.indexOf('T') > 0) {
      return OffsetDateTime.parse(text).toInstant();
    }
    // The zone-less form: written by older versions of this writer, always in UTC.
    return LocalDateTime.parse(text, TIMESTAMP_READ).toInstant(ZoneOffset.UTC);
  }

  /**
   * Why a serialized value cannot name a partition directory of {@code column}, or null when it
   * can: a NUL character, or a {@code column=value} segment over {@value #MAX_SEGMENT_BYTES} bytes
   * once escaped.
   */
  static String segmentProblem(String column, String serialized) {
    if (serialized == null) {
      return null;
    }
    if (serialized.indexOf('\0') >= 0) {
      return DataErrors.nulInPartitionValue(column);
    }
    int bytes = segmentBytes(column, serialized);
    if (bytes > MAX_SEGMENT_BYTES) {
      return DataErrors.partitionSegmentTooLong(column, bytes, MAX_SEGMENT_BYTES);
    }
    return null;
  }

  /** UTF-8 bytes of the escaped {@code column=value} directory name, without the '/'. */
  static int segmentBytes(String column, String serialized) {
    StringBuilder segment = new StringBuilder(column.length() + serialized.length() + 8);
    escapeTo(segment, column);
    segment.append('=');
    escapeTo(segment, serialized);
    return utf8Length(segment);
  }

  /** UTF-8 length without encoding (a lone surrogate counts as the 1 byte '?' it would become). */
  private static int utf8Length(CharSequence s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        bytes++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /**
   * The directory prefix of a partition, e.g. {@code region=EU/day=2024-01-01/}, or the empty
   * string for an unpartitioned table. Names and values are escaped as Delta does; a null value is
   * {@value #NULL_DIRECTORY}.
   */
  static String directory(List<String> columns, Map<String, String> values) {
    if (columns.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    for (String column : columns) {
      String value = values.get(column);
      escapeTo(out, column);
      out.append('=');
      if (value == null) {
        out.append(NULL_DIRECTORY);
      } else {
        escapeTo(out, value);
      }
      out.append('/');
    }
    return out.toString();
  }

  private static void escapeTo(StringBuilder out, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 128 && ESCAPED.get(c)) {
        out.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      } else {
        out.append(c);
      }
    }
  }
}
