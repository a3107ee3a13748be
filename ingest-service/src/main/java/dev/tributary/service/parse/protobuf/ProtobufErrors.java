package dev.tributary.service.parse.protobuf;

import dev.tributary.service.parse.EpochUnit;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/** Every message of this package, schema refusals and per-record failures, built in one place. */
final class ProtobufErrors {
  private static final int MAX_QUOTED = 40;

  private ProtobufErrors() {}

  // --- the wire decoder (ProtobufWireDecoder) ---

  static String notProtobuf(int id, String type) {
    return "schema id "
        + id
        + " is a "
        + type
        + " schema, not Protobuf; format.protobuf reads Protobuf only"
        + " (is the topic written by another serializer? use format."
        + type.toLowerCase(Locale.ROOT)
        + " for it)";
  }

  static String unusableSchema(int id, String part, String problem) {
    return "schema id " + id + " cannot be read into the declared " + part + " columns: " + problem;
  }

  static String withSchemaId(int id, String problem) {
    return "schema id " + id + ": " + problem;
  }

  // --- schema compilation (ProtobufSchemaException) ---

  static String unparsable(String file, String detail) {
    return "Protobuf schema file "
        + file
        + " does not parse: "
        + detail
        + "; register a schema that protoc accepts";
  }

  static String invalidTypes(String file, String detail) {
    return "Protobuf schema file " + file + " is not valid: " + detail;
  }

  static String missingImport(String importer, String name) {
    return "Protobuf schema file "
        + importer
        + " imports "
        + name
        + ", which is neither among the"
        + " schema's references nor a well-known type; register it and list it as a reference";
  }

  static String importCycle(String name, Deque<String> importing) {
    return "Protobuf schema files import each other in a cycle: "
        + name
        + " is imported again by "
        + String.join(" <- ", importing);
  }

  static String reservedReferenceName(String name) {
    return "a Protobuf schema reference is named "
        + name
        + ", the name this decoder gives the"
        + " schema itself; rename the reference";
  }

  static String groupsRefused(String file, String message) {
    return "Protobuf schema file "
        + file
        + ": message "
        + message
        + " declares a group (deprecated"
        + " proto2 encoding), which is not supported; use a nested message instead";
  }

  static String badMapType(String file, String field, String type) {
    return "Protobuf schema file "
        + file
        + ": field "
        + field
        + " has an unreadable map type "
        + type;
  }

  static String noSuchMessage(String message, List<String> topLevel) {
    return "format.protobuf.message is "
        + message
        + ", but the schema has no such message (its"
        + " top-level messages: "
        + String.join(", ", topLevel)
        + "); set message to a full name"
        + " (package.Message) the schema defines";
  }

  static String noColumns() {
    return "format.protobuf.schema declares no column; declare at least one (column: type)";
  }

  static String unsupportedField(String path, String message, String protoType, String why) {
    return "column '"
        + path
        + "': field "
        + path
        + " of message "
        + message
        + " is "
        + protoType
        + ", and "
        + why
        + "; remove '"
        + path
        + "' from the declared columns"
        + " (schema-evolution.rescue keeps it in _rescued_data)";
  }

  // --- per record (ParseResult.Failure) ---

  static String empty() {
    return "empty record: no Protobuf message indexes";
  }

  static String badIndexCount(int count) {
    return "invalid Protobuf message indexes: count "
        + count
        + " (expected 0 to "
        + MessageIndexes.MAX_DEPTH
        + "); is this the Confluent Protobuf wire format?";
  }

  static String negativeIndex(int index) {
    return "invalid Protobuf message indexes: negative index " + index;
  }

  static String truncatedIndexes() {
    return "invalid Protobuf message indexes: the record ends inside them";
  }

  static String varintTooLong() {
    return "invalid Protobuf message indexes: a varint longer than 5 bytes";
  }

  static String noMessageAt(MessageIndexes indexes, List<String> topLevel) {
    return "Protobuf message indexes "
        + indexes.indexes()
        + " point at no message of the schema"
        + " (its top-level messages: "
        + String.join(", ", topLevel)
        + ")";
  }

  static String wrongMessage(String found, String expected) {
    return "the record is a " + found + " message, but format.protobuf.message is " + expected;
  }

  static String malformed(String message, String detail) {
    return "could not decode the Protobuf payload as " + message + ": " + detail;
  }

  static String unreadable(String message, Exception e) {
    return "could not decode the Protobuf payload as " + message + ": " + e;
  }

  static String unrenderable(String message, String detail) {
    return "could not render the undeclared fields of "
        + message
        + " as JSON for _rescued_data: "
        + detail;
  }

  static String misfit(
      String path, DataType declared, String message, String protoType, Collection<String> fits) {
    return "field '"
        + path
        + "': declared "
        + declaredName(declared)
        + ", but message "
        + message
        + " has it as "
        + protoType
        + (fits.isEmpty()
            ? ""
            : "; declare it as " + String.join(" or ", fits) + ", or remove it from the columns");
  }

  static String outOfRange(String path, DataType declared, String value) {
    return "field '" + path + "': " + value + " is out of range for " + declaredName(declared);
  }

  static String newFieldOutOfRange(String field, String message, String value) {
    return "field '"
        + field
        + "' of "
        + message
        + " is new (schema-evolution.mode: add-columns) and holds the"
        + " uint64 "
        + value
        + ", above the long range of a new column; declare it in format.protobuf.schema as"
        + " decimal(20,0) or double, or turn on schema-evolution.rescue to keep it in _rescued_data";
  }

  static String unknownEnumValue(String path, String enumName, int number) {
    return "field '"
        + path
        + "': "
        + number
        + " is not a value of enum "
        + enumName
        + " (a newer producer's value? register the schema that defines it)";
  }

  static String timestampOutOfRange(String path, long seconds, int nanos) {
    return "field '"
        + path
        + "': google.protobuf.Timestamp {seconds: "
        + seconds
        + ", nanos: "
        + nanos
        + "} is outside the years 0001-9999";
  }

  static String epochOutOfRange(String path, EpochUnit unit, long value) {
    return "field '"
        + path
        + "': "
        + value
        + " epoch "
        + words(unit)
        + " is outside the years 0001-9999"
        + (unit == EpochUnit.MILLIS
            ? "; if it counts another unit, declare the column as"
                + " timestamp(seconds|micros|nanos)"
            : "");
  }

  static String invalidDate(String path, int year, int month, int day) {
    return "field '"
        + path
        + "': google.type.Date {year: "
        + year
        + ", month: "
        + month
        + ", day: "
        + day
        + "} is not a full calendar date in the years 0001-9999";
  }

  static String dateOutOfRange(String path, long days) {
    return "field '"
        + path
        + "': "
        + days
        + " days after 1970-01-01 is outside the years 0001-9999";
  }

  static String invalidText(String path, DataType declared, String text) {
    return "field '"
        + path
        + "': expected "
        + declaredName(declared)
        + ", found string "
        + quote(text);
  }

  static String timestampTextOutOfRange(String path, String text) {
    return "field '" + path + "': timestamp " + quote(text) + " is outside the years 0001-9999";
  }

  static String decimalTooLarge(String path, DecimalType d, String value) {
    return "field '"
        + path
        + "': "
        + quote(value)
        + " has more than "
        + (d.precision() - d.scale())
        + " integer digits, too many for "
        + d.deltaName();
  }

  static String decimalTooManyFractionDigits(String path, DecimalType d, String value) {
    return "field '"
        + path
        + "': "
        + quote(value)
        + " has more than "
        + d.scale()
        + " fraction digits, too many for "
        + d.deltaName()
        + " (rounding is refused)";
  }

  static String decimalNotFinite(String path, DecimalType d, double value) {
    return "field '" + path + "': " + value + " cannot be a " + d.deltaName();
  }

  /** The declared type as a user writes it in {@code format.protobuf.schema}. */
  static String declaredName(DataType type) {
    if (type instanceof DecimalType d) {
      return d.deltaName();
    }
    if (type instanceof StructType) {
      return "a struct (nested columns)";
    }
    if (!(type instanceof PrimitiveType primitive)) {
      return type.deltaName();
    }
    return switch (primitive) {
      case BYTE -> "byte";
      case SHORT -> "short";
      case FLOAT -> "float";
      case TIMESTAMP_NTZ -> "timestamp_ntz";
      case INTEGER -> "int";
      case LONG -> "long";
      case DOUBLE -> "double";
      case STRING -> "string";
      case BOOLEAN -> "boolean";
      case TIMESTAMP -> "timestamp";
      case DATE -> "date";
      case BINARY -> "binary";
    };
  }

  private static String words(EpochUnit unit) {
    return switch (unit) {
      case SECONDS -> "seconds";
      case MILLIS -> "milliseconds";
      case MICROS -> "microseconds";
      case NANOS -> "nanoseconds";
    };
  }

  private static String quote(String text) {
    String t = text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED) + "..." : text;
    return "\"" + t + "\"";
  }

  static String noRecordKey() {
    return "the record key is null; with columns: all and write: upsert without key, each table's"
        + " key is the record key's fields, so a record needs a Protobuf record key (or declare"
        + " sink.delta.key)";
  }
}
