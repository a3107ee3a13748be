package dev.tributary.service.sink.kafka;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The Avro schema of a Kafka sink's values ({@code value: avro}), derived from the pipeline's
 * output columns (docs/DESIGN.md, "The Kafka sink", for the table):
 *
 * <ul>
 *   <li>string → {@code string}; long → {@code long}; integer, short, byte → {@code int}; double →
 *       {@code double}; float → {@code float}; boolean → {@code boolean}; binary → {@code bytes}
 *   <li>decimal(p,s) → {@code bytes} with logical type {@code decimal} (precision p, scale s)
 *   <li>date → {@code int} {@code date}; timestamp → {@code long} {@code timestamp-micros};
 *       timestamp_ntz → {@code long} {@code local-timestamp-micros}
 *   <li>array → {@code array}; map → {@code map} (Avro map keys are strings: a key of another type
 *       is written as its text, as in the JSON value); struct → a nested {@code record}
 *   <li>a nullable column (element, map value) → the union {@code ["null", T]} with default {@code
 *       null}, so a consumer's reader schema may drop or add such a column
 * </ul>
 *
 * <p>The top record is {@code tributary.Row}; a nested record is named after its column, in the
 * namespace of the path to it ({@code tributary.row.customer.address} for the struct column {@code
 * address} of the struct column {@code customer}), so that names never clash. The same output
 * columns always give the same schema text, which is what lets the registry answer a restarted
 * pipeline with the id it gave before.
 */
public final class AvroRowSchema {
  private static final Pattern AVRO_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final String NAMESPACE = "tributary";

  private AvroRowSchema() {}

  /**
   * The schema of rows of {@code output}.
   *
   * @throws IllegalArgumentException if a column name is not an Avro name ({@link #problems} says
   *     which)
   */
  public static Schema of(StructType output) {
    List<String> problems = problems(output);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return record("Row", NAMESPACE, NAMESPACE + ".row", output);
  }

  /**
   * The column names (nested ones by their dotted path) that cannot be Avro field names, each with
   * the rule: an Avro name starts with a letter or {@code _} and goes on with letters, digits and
   * {@code _}. Empty when the schema can be derived.
   */
  public static List<String> problems(StructType output) {
    List<String> problems = new ArrayList<>();
    collectProblems(output, "", problems);
    return problems;
  }

  private static void collectProblems(DataType type, String prefix, List<String> problems) {
    if (type instanceof StructType struct) {
      for (StructField field : struct.fields()) {
        String path = prefix + field.name();
        if (!AVRO_NAME.matcher(field.name()).matches()) {
          problems.add(
              "column '"
                  + path
                  + "' is not an Avro name (a letter or _, then letters, digits or _), so it cannot"
                  + " be a field of the value's record; write value: json for this pipeline");
        }
        collectProblems(field.type(), path + ".", problems);
      }
    } else if (type instanceof ArrayType array) {
      collectProblems(array.elementType(), prefix, problems);
    } else if (type instanceof MapType map) {
      collectProblems(map.valueType(), prefix, problems);
    }
  }

  /**
   * A record named {@code name} in {@code namespace} whose struct columns become records in {@code
   * inner}.
   */
  private static Schema record(String name, String namespace, String inner, StructType struct) {
    List<Schema.Field> fields = new ArrayList<>();
    for (StructField field : struct.fields()) {
      Schema type = type(field.type(), field.name(), inner);
      fields.add(
          field.nullable()
              ? new Schema.Field(field.name(), nullable(type), null, JsonProperties.NULL_VALUE)
              : new Schema.Field(field.name(), type, null, (Object) null));
    }
    return Schema.createRecord(name, null, namespace, false, fields);
  }

  /**
   * The Avro type of a value of {@code type} in column {@code name}; a struct becomes a record
   * named {@code name} in {@code namespace}, its own nested records a level further down.
   */
  private static Schema type(DataType type, String name, String namespace) {
    if (type instanceof StructType struct) {
      return record(name, namespace, namespace + "." + name, struct);
    }
    if (type instanceof ArrayType array) {
      Schema element = type(array.elementType(), name, namespace);
      return Schema.createArray(array.containsNull() ? nullable(element) : element);
    }
    if (type instanceof MapType map) {
      Schema value = type(map.valueType(), name, namespace);
      return Schema.createMap(map.valueContainsNull() ? nullable(value) : value);
    }
    if (type instanceof DecimalType decimal) {
      return LogicalTypes.decimal(decimal.precision(), decimal.scale())
          .addToSchema(Schema.create(Schema.Type.BYTES));
    }
    return switch ((PrimitiveType) type) {
      case STRING -> Schema.create(Schema.Type.STRING);
      case LONG -> Schema.create(Schema.Type.LONG);
      case INTEGER, SHORT, BYTE -> Schema.create(Schema.Type.INT);
      case DOUBLE -> Schema.create(Schema.Type.DOUBLE);
      case FLOAT -> Schema.create(Schema.Type.FLOAT);
      case BOOLEAN -> Schema.create(Schema.Type.BOOLEAN);
      case BINARY -> Schema.create(Schema.Type.BYTES);
      case DATE -> LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case TIMESTAMP -> LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case TIMESTAMP_NTZ ->
          LogicalTypes.localTimestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
    };
  }

  private static Schema nullable(Schema type) {
    return Schema.createUnion(Schema.create(Schema.Type.NULL), type);
  }
}
