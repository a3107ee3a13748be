package dev.tributary.table.data;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Maps table types to Parquet types the way Spark and Delta write them, so every Delta reader
 * understands our files: string = BINARY (STRING), integer = INT32, long = INT64, double = DOUBLE,
 * boolean = BOOLEAN, timestamp = INT64 TIMESTAMP(MICROS, UTC), timestamp_ntz = INT64
 * TIMESTAMP(MICROS, not UTC), byte = INT32 INT(8), short = INT32 INT(16), float = FLOAT, date =
 * INT32 DATE, binary = BINARY, decimal = INT32 up to precision 9, INT64 up to 18, else
 * FIXED_LEN_BYTE_ARRAY of the minimum width (all with the DECIMAL annotation), struct = group,
 * array = the three-level LIST group ({@code list} / {@code element}), map = the MAP group ({@code
 * key_value} / {@code key}, {@code value}). Nullable fields are OPTIONAL, others REQUIRED.
 */
final class ParquetSchemas {
  /** Spark names the root group of the files it writes this way; we follow. */
  static final String ROOT_NAME = "spark_schema";

  /** The names of the repeated groups and fields of lists and maps, as Spark writes them. */
  static final String LIST = "list";

  static final String ELEMENT = "element";
  static final String KEY_VALUE = "key_value";
  static final String KEY = "key";
  static final String VALUE = "value";

  private ParquetSchemas() {}

  /** The file schema: the table schema without its partition columns. */
  static MessageType fileSchema(StructType tableSchema, List<String> partitionColumns) {
    List<Type> fields = new ArrayList<>();
    for (StructField field : tableSchema.fields()) {
      if (!partitionColumns.contains(field.name())) {
        fields.add(toParquet(field));
      }
    }
    return new MessageType(ROOT_NAME, fields);
  }

  /**
   * A field as a Parquet type, with its column mapping id as the Parquet field id if it has one.
   */
  static Type toParquet(StructField field) {
    Type type = build(field);
    return field.columnId() == null ? type : type.withId(field.columnId());
  }

  private static Type build(StructField field) {
    return build(
        field.name(),
        field.type(),
        field.nullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED);
  }

  private static Type build(String name, DataType type, Type.Repetition repetition) {
    if (type instanceof ArrayType array) {
      // the three-level LIST of the Parquet spec, with Spark's names (list, element)
      return Types.buildGroup(repetition)
          .as(LogicalTypeAnnotation.listType())
          .addField(
              Types.repeatedGroup()
                  .addField(build(ELEMENT, array.elementType(), repetition(array.containsNull())))
                  .named(LIST))
          .named(name);
    }
    if (type instanceof MapType map) {
      return Types.buildGroup(repetition)
          .as(LogicalTypeAnnotation.mapType())
          .addField(
              Types.repeatedGroup()
                  .addField(build(KEY, map.keyType(), Type.Repetition.REQUIRED))
                  .addField(build(VALUE, map.valueType(), repetition(map.valueContainsNull())))
                  .named(KEY_VALUE))
          .named(name);
    }
    return build(new StructField(name, type, repetition == Type.Repetition.OPTIONAL), repetition);
  }

  private static Type.Repetition repetition(boolean nullable) {
    return nullable ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
  }

  private static Type build(StructField field, Type.Repetition repetition) {
    DataType type = field.type();
    if (type instanceof StructType struct) {
      List<Type> children = new ArrayList<>();
      for (StructField child : struct.fields()) {
        children.add(toParquet(child));
      }
      return Types.buildGroup(repetition)
          .addFields(children.toArray(Type[]::new))
          .named(field.name());
    }
    if (type instanceof DecimalType decimal) {
      LogicalTypeAnnotation annotation =
          LogicalTypeAnnotation.decimalType(decimal.scale(), decimal.precision());
      if (decimal.precision() <= 9) {
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(annotation)
            .named(field.name());
      }
      if (decimal.precision() <= 18) {
        return Types.primitive(PrimitiveTypeName.INT64, repetition)
            .as(annotation)
            .named(field.name());
      }
      return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
          .length(decimalBytes(decimal.precision()))
          .as(annotation)
          .named(field.name());
    }
    PrimitiveType primitive = (PrimitiveType) type;
    return switch (primitive) {
      case STRING ->
          Types.primitive(PrimitiveTypeName.BINARY, repetition)
              .as(LogicalTypeAnnotation.stringType())
              .named(field.name());
      case BYTE ->
          Types.primitive(PrimitiveTypeName.INT32, repetition)
              .as(LogicalTypeAnnotation.intType(8, true))
              .named(field.name());
      case SHORT ->
          Types.primitive(PrimitiveTypeName.INT32, repetition)
              .as(LogicalTypeAnnotation.intType(16, true))
              .named(field.name());
      case INTEGER -> Types.primitive(PrimitiveTypeName.INT32, repetition).named(field.name());
      case FLOAT -> Types.primitive(PrimitiveTypeName.FLOAT, repetition).named(field.name());
      case LONG -> Types.primitive(PrimitiveTypeName.INT64, repetition).named(field.name());
      case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, repetition).named(field.name());
      case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(field.name());
      case TIMESTAMP ->
          Types.primitive(PrimitiveTypeName.INT64, repetition)
              .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS))
              .named(field.name());
      case TIMESTAMP_NTZ ->
          Types.primitive(PrimitiveTypeName.INT64, repetition)
              .as(
                  LogicalTypeAnnotation.timestampType(
                      false /* isAdjustedToUTC */, LogicalTypeAnnotation.TimeUnit.MICROS))
              .named(field.name());
      case DATE ->
          Types.primitive(PrimitiveTypeName.INT32, repetition)
              .as(LogicalTypeAnnotation.dateType())
              .named(field.name());
      case BINARY -> Types.primitive(PrimitiveTypeName.BINARY, repetition).named(field.name());
    };
  }

  /** The fewest bytes whose two's complement holds every unscaled value of the precision. */
  static int decimalBytes(int precision) {
    int bytes = 1;
    while (Math.pow(2.0, 8.0 * bytes - 1) < Math.pow(10.0, precision)) {
      bytes++;
    }
    return bytes;
  }
}
