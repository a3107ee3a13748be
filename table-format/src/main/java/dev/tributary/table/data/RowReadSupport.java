package dev.tributary.table.data;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Reads a data file into rows of the full table schema. Only columns that are both in the table
 * schema and in the file are read; partition columns come from the file's partition values, and
 * columns the file does not have (added to the table later) are null. Columns are found in the file
 * as the column mapping mode says ({@link ColumnMappingMode}): by name, by physical name, or by
 * Parquet field id.
 */
final class RowReadSupport extends ReadSupport<Object[]> {
  private final String key;
  private final StructType logicalSchema;
  private final ColumnMappingMode mode;
  private final Set<String> partitionColumns;
  private final Object[] template;

  /** The table schema with each field named as the file names it; set by {@link #init}. */
  private StructType tableSchema;

  /**
   * @param partitionColumns the physical names of the partition columns
   * @param template a row holding the partition values in their columns and null elsewhere
   */
  RowReadSupport(
      String key,
      StructType tableSchema,
      ColumnMappingMode mode,
      Set<String> partitionColumns,
      Object[] template) {
    this.key = key;
    this.logicalSchema = tableSchema;
    this.mode = mode;
    this.tableSchema = tableSchema;
    this.partitionColumns = Set.copyOf(partitionColumns);
    this.template = template.clone();
  }

  @Override
  public ReadContext init(InitContext context) {
    MessageType file = context.getFileSchema();
    tableSchema = resolve(logicalSchema, file);
    List<Type> fields = new ArrayList<>();
    for (StructField field : tableSchema.fields()) {
      if (!partitionColumns.contains(field.name()) && file.containsField(field.name())) {
        Type projected = project(file.getType(field.name()), field.type());
        if (projected != null) {
          fields.add(projected);
        }
      }
    }
    return new ReadContext(new MessageType(file.getName(), fields));
  }

  /**
   * The schema with each field named as {@code group} names it: its physical name, or under {@link
   * ColumnMappingMode#ID} the name of the file field with its id (a file written without ids is
   * read by physical name). A field the file lacks keeps a name the file does not have.
   */
  private StructType resolve(StructType schema, GroupType group) {
    if (mode == ColumnMappingMode.NONE) {
      return schema;
    }
    Map<Integer, String> byId = new HashMap<>();
    for (Type t : group.getFields()) {
      if (t.getId() != null) {
        byId.put(t.getId().intValue(), t.getName());
      }
    }
    List<StructField> fields = new ArrayList<>(schema.size());
    for (StructField f : schema.fields()) {
      String name = f.physicalName();
      if (mode == ColumnMappingMode.ID && f.columnId() != null && !byId.isEmpty()) {
        name = byId.getOrDefault(f.columnId(), "\u0000missing " + f.columnId());
      }
      StructField renamed = f.withName(name);
      if (group.containsField(name)) {
        renamed = renamed.withType(resolveType(f.type(), group.getType(name)));
      }
      fields.add(renamed);
    }
    return new StructType(fields);
  }

  /** A type with the structs in it (in lists and maps too) named as {@code file} names them. */
  private DataType resolveType(DataType type, Type file) {
    if (file.isPrimitive()) {
      return type;
    }
    GroupType group = file.asGroupType();
    if (type instanceof StructType nested) {
      return resolve(nested, group);
    }
    if (type instanceof ArrayType array
        && group.getFieldCount() == 1
        && group.getType(0).isRepetition(Type.Repetition.REPEATED)) {
      Type element =
          RowConverters.elementIsRepeated(group)
              ? group.getType(0)
              : group.getType(0).asGroupType().getType(0);
      return new ArrayType(resolveType(array.elementType(), element), array.containsNull());
    }
    if (type instanceof MapType map
        && group.getFieldCount() == 1
        && !group.getType(0).isPrimitive()
        && group.getType(0).asGroupType().getFieldCount() == 2) {
      GroupType entry = group.getType(0).asGroupType();
      return new MapType(
          resolveType(map.keyType(), entry.getType(0)),
          resolveType(map.valueType(), entry.getType(1)),
          map.valueContainsNull());
    }
    return type;
  }

  /** The part of a file field that the table type reads, or null if nothing of it is read. */
  private static Type project(Type fileField, DataType type) {
    if (!(type instanceof StructType struct) || fileField.isPrimitive()) {
      return fileField;
    }
    GroupType group = fileField.asGroupType();
    List<Type> children = new ArrayList<>();
    for (StructField child : struct.fields()) {
      if (group.containsField(child.name())) {
        Type projected = project(group.getType(child.name()), child.type());
        if (projected != null) {
          children.add(projected);
        }
      }
    }
    return children.isEmpty() ? null : group.withNewFields(children);
  }

  @Override
  public RecordMaterializer<Object[]> prepareForRead(
      ParquetConfiguration configuration,
      Map<String, String> keyValueMetaData,
      MessageType fileSchema,
      ReadContext readContext) {
    return materializer(readContext.getRequestedSchema());
  }

  @Override
  public RecordMaterializer<Object[]> prepareForRead(
      Configuration configuration,
      Map<String, String> keyValueMetaData,
      MessageType fileSchema,
      ReadContext readContext) {
    return materializer(readContext.getRequestedSchema());
  }

  private RecordMaterializer<Object[]> materializer(MessageType requested) {
    RowConverters.StructConverter root =
        new RowConverters.StructConverter(key, "", requested, tableSchema, template, null, -1);
    return new RecordMaterializer<>() {
      @Override
      public Object[] getCurrentRecord() {
        return root.current;
      }

      @Override
      public GroupConverter getRootConverter() {
        return root;
      }
    };
  }
}
