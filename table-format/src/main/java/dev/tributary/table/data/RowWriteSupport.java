package dev.tributary.table.data;

import dev.tributary.table.types.StructType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * Writes full-schema rows ({@code Object[]}) to one Parquet file, skipping the partition columns,
 * and collects the file's Delta statistics on the way. One instance per file.
 */
final class RowWriteSupport extends WriteSupport<Object[]> {
  private final MessageType fileSchema;
  private final FieldWriter[] fields;
  private RecordConsumer consumer;
  private long numRecords;

  RowWriteSupport(StructType tableSchema, List<String> partitionColumns, MessageType fileSchema) {
    this.fileSchema = fileSchema;
    this.fields = FieldWriters.forTable(tableSchema, partitionColumns);
  }

  @Override
  public WriteContext init(ParquetConfiguration configuration) {
    return new WriteContext(fileSchema, Map.of());
  }

  @Override
  public WriteContext init(Configuration configuration) {
    return new WriteContext(fileSchema, Map.of());
  }

  @Override
  public void prepareForWrite(RecordConsumer recordConsumer) {
    this.consumer = recordConsumer;
  }

  @Override
  public void write(Object[] row) {
    consumer.startMessage();
    FieldWriter.writeFields(consumer, fields, row);
    consumer.endMessage();
    numRecords++;
  }

  @Override
  public String getName() {
    return "tributary";
  }

  long numRecords() {
    return numRecords;
  }

  /** Statistics of every row written so far. */
  FileStats stats() {
    Map<String, Object> min = new LinkedHashMap<>();
    Map<String, Object> max = new LinkedHashMap<>();
    Map<String, Object> nulls = new LinkedHashMap<>();
    for (FieldWriter field : fields) {
      field.addStats(min, max, nulls);
    }
    return new FileStats(numRecords, min, max, nulls);
  }
}
