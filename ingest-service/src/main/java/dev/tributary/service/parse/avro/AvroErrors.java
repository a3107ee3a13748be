package dev.tributary.service.parse.avro;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.util.Locale;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;

/** Every message an Avro record can be quarantined with, built in one place. */
final class AvroErrors {
  private AvroErrors() {}

  static String notAvro(int id, String type) {
    return "schema id " + id + " is a " + type + " schema, not Avro; format.avro reads Avro only";
  }

  static String badSchema(int id, String problem) {
    return "schema id " + id + " is not a valid Avro schema: " + problem;
  }

  static String undecodable(int id, Exception e) {
    String m =
        e.getMessage() == null
            ? e.getClass().getSimpleName()
            : e.getClass().getSimpleName() + ": " + e.getMessage();
    return "the bytes do not decode with writer schema id " + id + " (" + shorten(m) + ")";
  }

  static String trailing(int id) {
    return "the Avro body of writer schema id "
        + id
        + " is followed by more bytes; a record holds exactly one"
        + " Avro datum (is the schema id right?)";
  }

  static AvroMisfit misfit(int id, String path, Schema writer, DataType declared) {
    return new AvroMisfit(
        "field '"
            + path
            + "': writer schema id "
            + id
            + " has "
            + describe(writer)
            + ", which does not fit the declared "
            + declaredName(declared));
  }

  static AvroMisfit outOfRange(String path, String what, Object value) {
    return new AvroMisfit(
        "field '" + path + "': " + what + " " + value + " is outside the years 0001-9999");
  }

  static AvroMisfit decimalTooLarge(String path, DecimalType d, BigDecimal v) {
    return new AvroMisfit(
        "field '"
            + path
            + "': "
            + shorten(v.toPlainString())
            + " has more than "
            + (d.precision() - d.scale())
            + " digits before the point and does not fit "
            + d.deltaName()
            + "; declare a larger precision");
  }

  static AvroMisfit decimalTooManyFractionDigits(String path, DecimalType d, BigDecimal v) {
    return new AvroMisfit(
        "field '"
            + path
            + "': "
            + shorten(v.toPlainString())
            + " has more than "
            + d.scale()
            + " digits after the point and cannot be stored in "
            + d.deltaName()
            + " without rounding; declare a"
            + " larger scale");
  }

  static AvroMisfit notUtf8(String path) {
    return new AvroMisfit(
        "field '" + path + "': the bytes are not UTF-8 text, so they cannot be a string");
  }

  /** "a string", "a long (timestamp-micros)", "a union [null, string, int]". */
  static String describe(Schema s) {
    return switch (s.getType()) {
      case UNION -> "a union " + s.getTypes().stream().map(AvroErrors::name).toList();
      case RECORD -> "a record " + s.getFullName();
      case ARRAY, ENUM, INT -> "an " + name(s);
      default -> "a " + name(s);
    };
  }

  private static String name(Schema s) {
    LogicalType logical = s.getLogicalType();
    String base =
        s.getType() == Schema.Type.RECORD
                || s.getType() == Schema.Type.ENUM
                || s.getType() == Schema.Type.FIXED
            ? s.getType().getName() + " " + s.getName()
            : s.getType().getName();
    return logical == null ? base : base + " (" + logical.getName() + ")";
  }

  static String declaredName(DataType type) {
    if (type instanceof StructType) {
      return "struct (a nested record)";
    }
    if (type instanceof DecimalType d) {
      return d.deltaName();
    }
    if (!(type instanceof PrimitiveType primitive)) {
      return type.deltaName();
    }
    return switch (primitive) {
      case INTEGER -> "int";
      default -> type.deltaName().toLowerCase(Locale.ROOT);
    };
  }

  private static String shorten(String text) {
    return text.length() <= 120 ? text : text.substring(0, 120) + "...";
  }

  static String noRecordKey() {
    return "the record key is null; with columns: all and write: upsert without key, each table's"
        + " key is the record key's fields, so a record needs an Avro record key (or declare"
        + " sink.delta.key)";
  }

  static String keyNotRecord(int id, String what) {
    return "writer schema id "
        + id
        + " of the record key is "
        + what
        + ", not a record; with columns: all and write: upsert without key, each table's key is"
        + " the record key's fields (declare sink.delta.key to key by value columns)";
  }

  static String valueNotRecord(int id, String what) {
    return "writer schema id "
        + id
        + " is "
        + what
        + ", not a record; columns: all makes a column of each field of a record value";
  }
}
