package dev.tributary.service.parse.avro;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The columns of an Avro writer record under {@code columns: all} (docs/FORMATS.md, "Every field of
 * the writer schema"): each field's type as the declaration would write it ({@code long}, {@code
 * timestamp(micros)}, {@code decimal(10,2)}), nested records as dotted columns. The mapping:
 *
 * <pre>
 *   boolean → boolean        int → int (logical date → date)        long → long
 *   float → float            double → double                        string, enum → string
 *   long timestamp-millis/-micros/-nanos (also local-) → timestamp
 *   bytes/fixed decimal(p,s), p ≤ 38 → decimal(p,s)
 *   record → its fields, as parent.child columns       [null, T] → as T
 *   Debezium (envelope: debezium): io.debezium.time.Date → date, Timestamp → timestamp,
 *     MicroTimestamp → timestamp(micros), NanoTimestamp → timestamp(nanos)
 * </pre>
 *
 * Fields of other types (arrays, maps, plain bytes and fixed, unions of several types) get no
 * column: they are listed in {@link #skipped} and logged once per writer schema.
 *
 * @param columns column name to type text, in writer order
 * @param skipped the dotted paths of the fields without a column
 */
record WriterColumns(LinkedHashMap<String, String> columns, List<String> skipped) {

  /** The property Kafka Connect's Avro converter names a field's semantic type with. */
  private static final String CONNECT_NAME = "connect.name";

  /** The columns of writer record {@code record}, reading Debezium's time types if {@code cdc}. */
  static WriterColumns of(Schema record, Flavour flavour) {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    List<String> skipped = new ArrayList<>();
    add(record, "", flavour, columns, skipped);
    return new WriterColumns(columns, List.copyOf(skipped));
  }

  /** Whether Debezium's semantic time types are read as times. */
  enum Flavour {
    PLAIN,
    DEBEZIUM
  }

  private static void add(
      Schema record,
      String prefix,
      Flavour flavour,
      LinkedHashMap<String, String> columns,
      List<String> skipped) {
    for (Schema.Field field : record.getFields()) {
      String name = prefix + field.name();
      Schema type = nonNull(field.schema());
      if (type != null && type.getType() == Schema.Type.RECORD) {
        add(type, name + ".", flavour, columns, skipped);
        continue;
      }
      String text = type == null ? null : typeText(type, flavour);
      if (text == null) {
        skipped.add(name);
      } else {
        columns.put(name, text);
      }
    }
  }

  /** {@code T} of {@code T} or {@code [null, T]}; null for a union of several types. */
  static Schema nonNull(Schema s) {
    if (s.getType() != Schema.Type.UNION) {
      return s;
    }
    List<Schema> branches =
        s.getTypes().stream().filter(b -> b.getType() != Schema.Type.NULL).toList();
    return branches.size() == 1 ? branches.get(0) : null;
  }

  private static String typeText(Schema s, Flavour flavour) {
    LogicalType logical = s.getLogicalType();
    String connect = flavour == Flavour.DEBEZIUM ? s.getProp(CONNECT_NAME) : null;
    return switch (s.getType()) {
      case BOOLEAN -> "boolean";
      case INT ->
          logical instanceof LogicalTypes.Date || "io.debezium.time.Date".equals(connect)
              ? "date"
              : "int";
      case LONG -> longType(logical, connect);
      case FLOAT -> "float";
      case DOUBLE -> "double";
      case STRING, ENUM -> "string";
      case BYTES, FIXED ->
          logical instanceof LogicalTypes.Decimal d && d.getPrecision() <= 38
              ? "decimal(" + d.getPrecision() + "," + d.getScale() + ")"
              : null;
      default -> null;
    };
  }

  private static String longType(LogicalType logical, String connect) {
    if (logical != null) {
      return switch (logical.getName()) {
        case "timestamp-millis",
            "timestamp-micros",
            "timestamp-nanos",
            "local-timestamp-millis",
            "local-timestamp-micros",
            "local-timestamp-nanos" ->
            "timestamp";
        default -> "long";
      };
    }
    if (connect == null) {
      return "long";
    }
    return switch (connect) {
      case "io.debezium.time.Timestamp" -> "timestamp";
      case "io.debezium.time.MicroTimestamp" -> "timestamp(micros)";
      case "io.debezium.time.NanoTimestamp" -> "timestamp(nanos)";
      default -> "long";
    };
  }
}
