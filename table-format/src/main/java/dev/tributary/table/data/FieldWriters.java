package dev.tributary.table.data;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.io.api.RecordConsumer;

/** Builds the field writers of a table schema, and writes struct fields. */
final class FieldWriters {
  private FieldWriters() {}

  /** One writer per non-partition top-level column, reading values from full-schema rows. */
  static FieldWriter[] forTable(StructType schema, List<String> partitionColumns) {
    List<FieldWriter> writers = new ArrayList<>();
    for (int i = 0; i < schema.size(); i++) {
      StructField field = schema.fields().get(i);
      if (!partitionColumns.contains(field.name())) {
        writers.add(create(field, writers.size(), i, field.name()));
      }
    }
    return writers.toArray(FieldWriter[]::new);
  }

  static FieldWriter create(StructField field, int fieldIndex, int valueIndex, String path) {
    String name = field.name();
    boolean required = !field.nullable();
    DataType type = field.type();
    if (type instanceof StructType struct) {
      return new StructWriter(name, path, struct, fieldIndex, valueIndex, required);
    }
    if (type instanceof ArrayType array) {
      return new ArrayWriter(name, path, array, fieldIndex, valueIndex, required);
    }
    if (type instanceof MapType map) {
      return new MapWriter(name, path, map, fieldIndex, valueIndex, required);
    }
    if (type instanceof DecimalType decimal) {
      return decimal.precision() <= 18
          ? new DecimalFieldWriters.UnscaledLongWriter(
              name, path, decimal, fieldIndex, valueIndex, required)
          : new DecimalFieldWriters.FixedWriter(
              name, path, decimal, fieldIndex, valueIndex, required);
    }
    return switch ((PrimitiveType) type) {
      case STRING ->
          new PrimitiveFieldWriters.StringWriter(
              name, path, type, fieldIndex, valueIndex, required);
      case BYTE, SHORT ->
          new PrimitiveFieldWriters.SmallIntWriter(
              name, path, type, fieldIndex, valueIndex, required);
      case INTEGER ->
          new PrimitiveFieldWriters.IntWriter(name, path, type, fieldIndex, valueIndex, required);
      case FLOAT ->
          new PrimitiveFieldWriters.FloatWriter(name, path, type, fieldIndex, valueIndex, required);
      case LONG ->
          new PrimitiveFieldWriters.LongWriter(name, path, type, fieldIndex, valueIndex, required);
      case DOUBLE ->
          new PrimitiveFieldWriters.DoubleWriter(
              name, path, type, fieldIndex, valueIndex, required);
      case BOOLEAN ->
          new PrimitiveFieldWriters.BooleanWriter(
              name, path, type, fieldIndex, valueIndex, required);
      case TIMESTAMP ->
          new PrimitiveFieldWriters.TimestampWriter(
              name, path, type, fieldIndex, valueIndex, required);
      case TIMESTAMP_NTZ ->
          new PrimitiveFieldWriters.TimestampNtzWriter(
              name, path, type, fieldIndex, valueIndex, required);
      case DATE ->
          new PrimitiveFieldWriters.DateWriter(name, path, type, fieldIndex, valueIndex, required);
      case BINARY ->
          new PrimitiveFieldWriters.BinaryWriter(
              name, path, type, fieldIndex, valueIndex, required);
    };
  }

  /**
   * A struct column: a Parquet group. Its statistics are nested maps of its fields' statistics; a
   * null struct counts as a null in every nested field (reading a field of a null struct gives
   * null, which is what the null counts describe).
   */
  static final class StructWriter extends FieldWriter {
    private final FieldWriter[] children;

    StructWriter(
        String name,
        String path,
        StructType type,
        int fieldIndex,
        int valueIndex,
        boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
      children = new FieldWriter[type.size()];
      for (int i = 0; i < children.length; i++) {
        StructField child = type.fields().get(i);
        children[i] = create(child, i, i, path + "." + child.name());
      }
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      Object[] values = (Object[]) value;
      if (values.length != children.length) {
        throw new IllegalArgumentException(
            DataErrors.wrongClass(path, type, value)
                + "; a struct value is an Object[] of "
                + children.length
                + " values, got "
                + values.length);
      }
      consumer.startGroup();
      writeFields(consumer, children, values);
      consumer.endGroup();
    }

    @Override
    void countNull() {
      for (FieldWriter child : children) {
        child.countNull();
      }
    }

    @Override
    void addStats(Map<String, Object> min, Map<String, Object> max, Map<String, Object> nulls) {
      Map<String, Object> childMin = new LinkedHashMap<>();
      Map<String, Object> childMax = new LinkedHashMap<>();
      Map<String, Object> childNulls = new LinkedHashMap<>();
      for (FieldWriter child : children) {
        child.addStats(childMin, childMax, childNulls);
      }
      nulls.put(name, Collections.unmodifiableMap(childNulls));
      if (!childMin.isEmpty()) {
        min.put(name, Collections.unmodifiableMap(childMin));
      }
      if (!childMax.isEmpty()) {
        max.put(name, Collections.unmodifiableMap(childMax));
      }
    }
  }

  /**
   * An array column: the three-level LIST group of {@link ParquetSchemas}, one repeated {@code
   * list} group per element. Like Delta, no statistics but the column's null count.
   */
  static final class ArrayWriter extends FieldWriter {
    private final FieldWriter[] element;

    ArrayWriter(
        String name,
        String path,
        ArrayType type,
        int fieldIndex,
        int valueIndex,
        boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
      element =
          new FieldWriter[] {
            create(
                new StructField(ParquetSchemas.ELEMENT, type.elementType(), type.containsNull()),
                0,
                0,
                path + ".element")
          };
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      List<?> values = (List<?>) value;
      consumer.startGroup();
      if (!values.isEmpty()) {
        consumer.startField(ParquetSchemas.LIST, 0);
        Object[] slot = new Object[1];
        for (Object v : values) {
          slot[0] = v;
          consumer.startGroup();
          writeFields(consumer, element, slot);
          consumer.endGroup();
        }
        consumer.endField(ParquetSchemas.LIST, 0);
      }
      consumer.endGroup();
    }

    @Override
    void addStats(Map<String, Object> min, Map<String, Object> max, Map<String, Object> nulls) {
      nulls.put(name, nullCount);
    }
  }

  /**
   * A map column: the MAP group of {@link ParquetSchemas}, one repeated {@code key_value} group per
   * entry. Like Delta, no statistics but the column's null count.
   */
  static final class MapWriter extends FieldWriter {
    private final FieldWriter[] entry;

    MapWriter(
        String name, String path, MapType type, int fieldIndex, int valueIndex, boolean required) {
      super(name, path, type, fieldIndex, valueIndex, required);
      entry =
          new FieldWriter[] {
            create(new StructField(ParquetSchemas.KEY, type.keyType(), false), 0, 0, path + ".key"),
            create(
                new StructField(ParquetSchemas.VALUE, type.valueType(), type.valueContainsNull()),
                1,
                1,
                path + ".value")
          };
    }

    @Override
    void write(RecordConsumer consumer, Object value) {
      Map<?, ?> values = (Map<?, ?>) value;
      consumer.startGroup();
      if (!values.isEmpty()) {
        consumer.startField(ParquetSchemas.KEY_VALUE, 0);
        Object[] slots = new Object[2];
        for (Map.Entry<?, ?> e : values.entrySet()) {
          slots[0] = e.getKey();
          slots[1] = e.getValue();
          consumer.startGroup();
          writeFields(consumer, entry, slots);
          consumer.endGroup();
        }
        consumer.endField(ParquetSchemas.KEY_VALUE, 0);
      }
      consumer.endGroup();
    }

    @Override
    void addStats(Map<String, Object> min, Map<String, Object> max, Map<String, Object> nulls) {
      nulls.put(name, nullCount);
    }
  }
}
