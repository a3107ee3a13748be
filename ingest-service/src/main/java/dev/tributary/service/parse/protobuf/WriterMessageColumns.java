package dev.tributary.service.parse.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of a writer message under {@code columns: all} (docs/FORMATS.md, "Protobuf: every
 * field of the writer message"): each singular field's type as the declaration would write it,
 * nested messages as dotted columns. The mapping:
 *
 * <pre>
 *   int32, sint32, sfixed32 → int       uint32, fixed32, int64, sint64, sfixed64 → long
 *   uint64, fixed64 → decimal(20,0)     float, double → double      bool → boolean
 *   string, enum → string               google.protobuf.Timestamp → timestamp
 *   google.type.Date → date             wrappers (Int64Value, …) → as the wrapped scalar
 *   other messages → their fields, as parent.child columns (up to 8 levels)
 * </pre>
 *
 * Repeated fields, maps and bytes get no column: they are listed in {@link #skipped}.
 *
 * @param columns column name to type text, in field order
 * @param skipped the dotted paths of the fields without a column
 */
record WriterMessageColumns(LinkedHashMap<String, String> columns, List<String> skipped) {
  private static final int MAX_DEPTH = 8;

  private static final Map<String, String> WRAPPED =
      Map.of(
          "google.protobuf.DoubleValue", "double",
          "google.protobuf.FloatValue", "double",
          "google.protobuf.Int64Value", "long",
          "google.protobuf.UInt64Value", "decimal(20,0)",
          "google.protobuf.Int32Value", "int",
          "google.protobuf.UInt32Value", "long",
          "google.protobuf.BoolValue", "boolean",
          "google.protobuf.StringValue", "string");

  static WriterMessageColumns of(Descriptor message) {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    List<String> skipped = new ArrayList<>();
    add(message, "", 0, columns, skipped);
    return new WriterMessageColumns(columns, List.copyOf(skipped));
  }

  private static void add(
      Descriptor message,
      String prefix,
      int depth,
      LinkedHashMap<String, String> columns,
      List<String> skipped) {
    for (FieldDescriptor field : message.getFields()) {
      String name = prefix + field.getName();
      if (field.isRepeated() || field.isMapField()) {
        skipped.add(name);
        continue;
      }
      String type = typeText(field);
      if (type != null) {
        columns.put(name, type);
      } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE && depth < MAX_DEPTH) {
        add(field.getMessageType(), name + ".", depth + 1, columns, skipped);
      } else {
        skipped.add(name);
      }
    }
  }

  /** The column type of a scalar or well-known field; null for bytes and other messages. */
  private static String typeText(FieldDescriptor field) {
    return switch (field.getType()) {
      case INT32, SINT32, SFIXED32 -> "int";
      case UINT32, FIXED32, INT64, SINT64, SFIXED64 -> "long";
      case UINT64, FIXED64 -> "decimal(20,0)";
      case FLOAT, DOUBLE -> "double";
      case BOOL -> "boolean";
      case STRING, ENUM -> "string";
      case MESSAGE, GROUP -> {
        String full = field.getMessageType().getFullName();
        if (full.equals(WellKnownFiles.TIMESTAMP)) {
          yield "timestamp";
        }
        if (full.equals(WellKnownFiles.DATE)) {
          yield "date";
        }
        yield WRAPPED.get(full);
      }
      default -> null; // bytes
    };
  }
}
