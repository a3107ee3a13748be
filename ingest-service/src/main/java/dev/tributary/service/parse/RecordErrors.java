package dev.tributary.service.parse;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.Locale;

/** Every message a record can be quarantined with, built in one place. */
final class RecordErrors {
  private static final int MAX_QUOTED = 40;

  private RecordErrors() {}

  static BadRecordException wrongType(String path, DataType expected, JsonParser p, JsonToken t)
      throws IOException {
    return new BadRecordException(
        "field '" + path + "': expected " + describe(expected) + ", found " + found(p, t));
  }

  /** As {@link #wrongType}, naming the column's epoch unit. */
  static BadRecordException wrongType(
      String path, DataType expected, EpochUnit unit, JsonParser p, JsonToken t)
      throws IOException {
    return new BadRecordException(
        "field '" + path + "': expected " + describeTimestamp(unit) + ", found " + found(p, t));
  }

  /** As {@link #invalidText}, naming the column's epoch unit. */
  static BadRecordException invalidText(
      String path, DataType expected, EpochUnit unit, String text) {
    return new BadRecordException(
        "field '"
            + path
            + "': expected "
            + describeTimestamp(unit)
            + ", found string "
            + quote(text, true));
  }

  static BadRecordException timestampTextOutOfRange(String path, String text) {
    return new BadRecordException(
        "field '" + path + "': timestamp " + quote(text, true) + " is outside the years 0001-9999");
  }

  static BadRecordException dateOutOfRange(String path, String text) {
    return new BadRecordException(
        "field '" + path + "': date " + quote(text, true) + " is outside the years 0001-9999");
  }

  /** A number beyond the long range for a timestamp column. */
  static BadRecordException epochOutOfRange(String path, EpochUnit unit, String text) {
    return new BadRecordException(
        "field '"
            + path
            + "': number "
            + quote(text, false)
            + " is out of range for a timestamp in epoch "
            + unit.words());
  }

  /**
   * An epoch outside the years 0001-9999 in the column's unit; when another unit would make it a
   * plausible time (a nanosecond epoch in a millisecond column), the message says which.
   */
  static BadRecordException epochOutOfRange(String path, EpochUnit unit, String text, long value) {
    String hint = "";
    for (EpochUnit other : EpochUnit.values()) {
      if (other != unit && other.plausible(value)) {
        hint =
            "; if it counts "
                + other.words()
                + ", declare the column as timestamp("
                + other.keyword()
                + ")";
        break;
      }
    }
    return new BadRecordException(
        "field '"
            + path
            + "': "
            + quote(text, false)
            + " epoch "
            + unit.words()
            + " is outside the years 0001-9999"
            + hint);
  }

  static BadRecordException notIntegral(String path, DataType expected, JsonParser p)
      throws IOException {
    return new BadRecordException(
        "field '"
            + path
            + "': expected "
            + describe(expected)
            + ", found number "
            + p.getText()
            + " (it has a fractional part)");
  }

  static BadRecordException outOfRange(String path, DataType expected, JsonParser p)
      throws IOException {
    return new BadRecordException(
        "field '"
            + path
            + "': number "
            + quote(p.getText(), false)
            + " is out of range for "
            + expected.deltaName().replace("integer", "int"));
  }

  static BadRecordException decimalTooManyFractionDigits(String path, DecimalType d, String text) {
    return new BadRecordException(
        "field '"
            + path
            + "': "
            + quote(text, false)
            + " has more than "
            + d.scale()
            + " digits after the point and cannot be stored in "
            + d.deltaName()
            + " without rounding; declare a larger scale");
  }

  static BadRecordException decimalTooLarge(String path, DecimalType d, String text) {
    return new BadRecordException(
        "field '"
            + path
            + "': "
            + quote(text, false)
            + " has more than "
            + (d.precision() - d.scale())
            + " digits before the point and does not fit "
            + d.deltaName()
            + "; declare a larger precision");
  }

  static BadRecordException decimalTextTooLong(
      String path, DataType expected, int length, int limit) {
    return new BadRecordException(
        "field '"
            + path
            + "': expected "
            + describe(expected)
            + ", found a string of "
            + length
            + " characters (numbers are read up to "
            + limit
            + ")");
  }

  static BadRecordException invalidText(String path, DataType expected, String text) {
    return new BadRecordException(
        "field '"
            + path
            + "': expected "
            + describe(expected)
            + ", found string "
            + quote(text, true));
  }

  static String keyNotDecoded() {
    return "record value is null (a tombstone) and this format does not decode the record key;"
        + " declare the key's columns (format.avro.key or format.protobuf.key) so that a tombstone"
        + " deletes its key";
  }

  static String nullKey() {
    return "record value is null (a tombstone) and so is its key: there is no key to delete";
  }

  static String keyNotAnObject(int columns) {
    return "record value is null (a tombstone) and its key is not a JSON object; a key of "
        + columns
        + " columns must be a JSON object with them, like {\"id\": 42}";
  }

  static String tombstone() {
    return "record value is null (a tombstone)";
  }

  static String empty() {
    return "record is empty (0 bytes); expected a JSON object";
  }

  static String blank() {
    return "record holds only whitespace; expected a JSON object";
  }

  static String notAnObject(JsonParser p, JsonToken t) throws IOException {
    return "expected a JSON object at the top level, found " + found(p, t);
  }

  static String trailing(JsonParser p) {
    JsonLocation at = p.currentTokenLocation();
    return "unexpected content after the JSON object at line "
        + at.getLineNr()
        + " column "
        + at.getColumnNr()
        + "; a record must hold exactly one JSON object";
  }

  static String tooLarge(int length, long max) {
    return "record is " + size(length) + ", above max-record-size " + size(max);
  }

  static String malformed(JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    String where = at == null ? "" : " at line " + at.getLineNr() + " column " + at.getColumnNr();
    return "malformed JSON" + where + ": " + e.getOriginalMessage();
  }

  static String unreadable(Exception e) {
    return "could not read the record as JSON: " + e;
  }

  /** "a long", "a decimal(10,2)", "a timestamp (...)": the expectation in messages. */
  static String describe(DataType type) {
    if (type instanceof DecimalType d) {
      return "a " + d.deltaName() + " (a number or a numeric string)";
    }
    if (type instanceof StructType) {
      return "an object";
    }
    if (!(type instanceof PrimitiveType primitive)) {
      return "a " + type.deltaName();
    }
    return switch (primitive) {
      case BYTE -> "a byte (-128 to 127)";
      case SHORT -> "a short (-32768 to 32767)";
      case FLOAT -> "a float";
      case TIMESTAMP_NTZ -> "a timestamp_ntz (ISO-8601 local date-time like 2026-01-01T10:00:00)";
      case INTEGER -> "an int";
      case LONG -> "a long";
      case DOUBLE -> "a double";
      case STRING -> "a string";
      case BOOLEAN -> "a boolean";
      case TIMESTAMP -> describeTimestamp(EpochUnit.MILLIS);
      case DATE -> "a date (yyyy-MM-dd)";
      case BINARY -> "binary";
    };
  }

  private static String describeTimestamp(EpochUnit unit) {
    return "a timestamp (ISO-8601 like 2026-01-01T00:00:00Z, or epoch " + unit.words() + ")";
  }

  private static String found(JsonParser p, JsonToken t) throws IOException {
    return switch (t) {
      case VALUE_STRING -> "string " + quote(p.getText(), true);
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number " + quote(p.getText(), false);
      case VALUE_TRUE -> "boolean true";
      case VALUE_FALSE -> "boolean false";
      case VALUE_NULL -> "null";
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      default -> t.name().toLowerCase(Locale.ROOT);
    };
  }

  /** The text, shortened so a huge value cannot bloat the quarantine row. */
  private static String quote(String text, boolean quotes) {
    String shown = text.length() <= MAX_QUOTED ? text : text.substring(0, MAX_QUOTED) + "...";
    return quotes ? '"' + shown + '"' : shown;
  }

  /** Binary units, as max-record-size is written in pipeline files (1MB = 1024 KB). */
  static String size(long bytes) {
    if (bytes < 1024) {
      return bytes + " bytes";
    }
    double kb = bytes / 1024.0;
    if (kb < 1024) {
      return oneDecimal(kb) + " KB";
    }
    return oneDecimal(kb / 1024.0) + " MB";
  }

  private static String oneDecimal(double v) {
    String s = String.format(Locale.ROOT, "%.1f", v);
    return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
  }
}
