package dev.tributary.table.data;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.dv.DeletionVectors;
import dev.tributary.table.dv.RoaringBitmapArray;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.InputFile;

/**
 * Entry point for Parquet data files of a Delta table: writing rows into partitioned, size-rolled
 * files with statistics, reading a file back, and Delta's partition value serialization.
 *
 * <p>File layout (Delta and Hive convention): {@code
 * [col=value/...]part-NNNNN-<uuid>.<codec>.parquet} under the table root, one directory level per
 * partition column in partition order, the value serialized as {@link #serializePartitionValue}
 * does, then escaped as Spark escapes path names ({@code a/b} becomes {@code a%2Fb}), null as
 * {@code __HIVE_DEFAULT_PARTITION__}. Partition columns are not stored inside the files; their
 * values live in {@link DataFile#partitionValues()}.
 *
 * <p>Column types follow Spark/Delta (see the package documentation for the mapping). Files are
 * written through {@link ObjectStore#create} (streamed; multipart on S3) and read with ranged
 * reads, with no Hadoop file system involved.
 */
public final class DataFiles {
  private DataFiles() {}

  /**
   * Starts writing rows of a table.
   *
   * @param tableStore the store rooted at the table directory (files are created at keys relative
   *     to it)
   * @param schema the full table schema, partition columns included
   * @param partitionColumns top-level columns to partition by, outermost first (may be empty); each
   *     must be of a primitive type other than binary
   * @param options target file size and codec
   * @return a writer that the caller must finish or abort
   * @throws IllegalArgumentException if a partition column is unknown, repeated or of an
   *     unsupported type, or if every column is a partition column
   */
  public static PartitionedDataWriter newWriter(
      ObjectStore tableStore,
      StructType schema,
      List<String> partitionColumns,
      DataWriteOptions options) {
    return newWriter(tableStore, schema, partitionColumns, options, new DictionaryMemory());
  }

  /**
   * Starts writing rows of a table, as {@link #newWriter(ObjectStore, StructType, List,
   * DataWriteOptions)}, with the columns not worth a dictionary learnt from earlier files: a writer
   * of many batches (a sink) passes the same {@code dictionaries} to every batch's writer.
   */
  public static PartitionedDataWriter newWriter(
      ObjectStore tableStore,
      StructType schema,
      List<String> partitionColumns,
      DataWriteOptions options,
      DictionaryMemory dictionaries) {
    return new RollingPartitionedWriter(
        tableStore, schema, partitionColumns, options, dictionaries);
  }

  /**
   * Opens a data file for reading as rows of {@code schema}: partition columns are filled from
   * {@link DataFile#partitionValues()}, columns missing from the file (added to the schema after
   * the file was written) are null, and columns of the file not in the schema are skipped. The
   * caller closes the iterator. The object's size comes from the store (not from {@link
   * DataFile#size()}), and bytes are fetched with ranged reads. The rows the file's {@link
   * DataFile#deletionVector() deletion vector} names are skipped (the vector is read first: inline
   * from the log, else with one ranged read of its file, checked against its checksum).
   *
   * @throws IOException if the object or its deletion vector file is missing or cannot be read
   * @throws IllegalStateException if the deletion vector is corrupt
   * @throws IllegalArgumentException if a partition value cannot be parsed as its column's type
   * @throws IllegalStateException (from iteration) if the file stores a column in a type that
   *     cannot be read as the schema's type
   */
  public static RowIterator read(ObjectStore tableStore, DataFile file, StructType schema)
      throws IOException {
    return read(tableStore, file, schema, ColumnMappingMode.NONE);
  }

  /**
   * {@link #read(ObjectStore, DataFile, StructType)} for a table with column mapping: the columns
   * are found in the file, and the partition values in {@link DataFile#partitionValues()}, by the
   * names {@code mode} gives them; the rows are in the order of {@code schema}, whatever its
   * (logical) names.
   */
  public static RowIterator read(
      ObjectStore tableStore, DataFile file, StructType schema, ColumnMappingMode mode)
      throws IOException {
    RoaringBitmapArray deleted = null;
    if (file.deletionVector() != null) {
      try {
        deleted = DeletionVectors.load(tableStore, file.deletionVector());
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            DataErrors.corruptDeletionVector(tableStore.location(), file.path(), e.getMessage()),
            e);
      }
    }
    Object[] template = new Object[schema.size()];
    Set<String> partitionKeys = new HashSet<>();
    for (int i = 0; i < schema.size(); i++) {
      StructField field = schema.fields().get(i);
      String key = mode.physicalName(field);
      if (file.partitionValues().containsKey(key)) {
        partitionKeys.add(key);
        template[i] = PartitionValues.parse(file.partitionValues().get(key), field.type());
      }
    }
    RowReadSupport support = new RowReadSupport(file.path(), schema, mode, partitionKeys, template);
    InputFile input = new StoreInputFile(tableStore, file.path());
    ParquetReader<Object[]> reader =
        new ReaderBuilder(input, new PlainParquetConfiguration(), support)
            .withCodecFactory(ParquetCodecs.INSTANCE)
            .build();
    RowIterator rows = new ParquetRowIterator(reader, tableStore.location(), file.path());
    return deleted == null || deleted.isEmpty() ? rows : new LiveRowIterator(rows, deleted);
  }

  /**
   * The number of rows a data file holds, deleted ones included: its Parquet footer's count (one
   * ranged read of the footer), for a file whose stats do not say.
   */
  public static long rowCount(ObjectStore tableStore, String path) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new StoreInputFile(tableStore, path),
            ParquetReadOptions.builder(new PlainParquetConfiguration())
                .withCodecFactory(ParquetCodecs.INSTANCE)
                .build())) {
      return reader.getRecordCount();
    }
  }

  /** Reads a whole (small) data file into memory; see {@link #read} for the row contents. */
  public static List<Object[]> readAll(ObjectStore tableStore, DataFile file, StructType schema)
      throws IOException {
    List<Object[]> rows = new ArrayList<>();
    try (CloseableIterator<Object[]> it = read(tableStore, file, schema)) {
      it.forEachRemaining(rows::add);
    }
    return rows;
  }

  /**
   * Serializes a partition value as the Delta protocol prescribes: strings as is, numbers in
   * decimal, booleans {@code true}/{@code false}, dates {@code yyyy-MM-dd}, timestamps in UTC as
   * {@code yyyy-MM-dd HH:mm:ss[.SSSSSS]}, decimals in plain notation. Null and the empty string
   * give null (the protocol reads an empty string as null).
   *
   * @throws IllegalArgumentException if the type cannot be a partition column type
   * @throws ClassCastException if the value is not of the type's Java class
   */
  public static String serializePartitionValue(Object value, DataType type) {
    return PartitionValues.serialize(value, type);
  }

  /**
   * Parses a serialized partition value (the inverse of {@link #serializePartitionValue}; also
   * accepts ISO-8601 timestamps with an offset). Null and the empty string give null.
   *
   * @throws IllegalArgumentException naming the text and type if it is not a valid value
   */
  public static Object parsePartitionValue(String text, DataType type) {
    return PartitionValues.parse(text, type);
  }

  /**
   * The escaped directory prefix (ending in {@code /}) of a partition, e.g. {@code
   * region=EU/day=2024-01-01/}; the empty string for no partition columns.
   *
   * @param partitionColumns partition columns, outermost first
   * @param partitionValues serialized values by column (a missing or null value is the null
   *     partition)
   */
  public static String partitionDirectory(
      List<String> partitionColumns, Map<String, String> partitionValues) {
    return PartitionValues.directory(partitionColumns, partitionValues);
  }

  /**
   * Checks a partition-by list against a schema exactly as {@link #newWriter} does, so a table can
   * refuse it at creation time.
   *
   * @throws IllegalArgumentException naming the offending column if one is unknown, repeated or of
   *     an unsupported type (struct, binary), or if every column is a partition column
   */
  public static void checkPartitionColumns(StructType schema, List<String> partitionColumns) {
    PartitionValues.checkPartitionColumns(schema, partitionColumns);
  }

  /** Plugs our read support into Parquet's reader builder. */
  private static final class ReaderBuilder extends ParquetReader.Builder<Object[]> {
    private final ReadSupport<Object[]> support;

    ReaderBuilder(InputFile file, ParquetConfiguration conf, ReadSupport<Object[]> support) {
      super(file, conf);
      this.support = support;
    }

    @Override
    protected ReadSupport<Object[]> getReadSupport() {
      return support;
    }
  }
}
