package dev.tributary.table.data;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
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
 * columns the file does not have (added to the table later) are null.
 */
final class RowReadSupport extends ReadSupport<Object[]> {
  private final String key;
  private final StructType tableSchema;
  private final Set<String> partitionColumns;
  private final Object[] template;

  /**
   * @param template a row holding the partition values in their columns and null elsewhere
   */
  RowReadSupport(
      String key, StructType tableSchema, Set<String> partitionColumns, Object[] template) {
    this.key = key;
    this.tableSchema = tableSchema;
    this.partitionColumns = Set.copyOf(partitionColumns);
    this.template = template.clone();
  }

  @Override
  public ReadContext init(InitContext context) {
    MessageType file = context.getFileSchema();
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
