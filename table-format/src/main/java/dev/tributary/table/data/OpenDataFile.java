package dev.tributary.table.data;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Parquet data file being written: rows go in, and {@link #publish()} completes the file in the
 * store and describes it as a {@link DataFile}, or {@link #abort()} discards it.
 *
 * <p>Size check: asking Parquet for its size walks every column, so it is not done per row. After
 * each check the number of rows that can safely be added before the next one is estimated from the
 * average row size so far (half the remaining room, at most {@value #MAX_ROWS_BETWEEN_CHECKS}),
 * which keeps the overshoot past the target to a few rows.
 */
final class OpenDataFile {
  private static final Logger LOG = LoggerFactory.getLogger(OpenDataFile.class);
  private static final long MAX_ROWS_BETWEEN_CHECKS = 1000;

  /**
   * Parquet keeps a whole row group in memory per open file, so row groups are capped well below
   * the usual 128 MB: with many partitions open at once, memory is about partitions x this.
   */
  static final long MAX_ROW_GROUP_SIZE = 64L * 1024 * 1024;

  final List<String> partitionKey;
  private final String key;
  private final Map<String, String> partitionValues;
  private final StoreOutputFile output;
  private final RowWriteSupport support;
  private final ParquetWriter<Object[]> writer;
  private final long targetSize;
  private final DictionaryMemory dictionaries;
  private long rowsUntilCheck = 1;

  private OpenDataFile(
      List<String> partitionKey,
      String key,
      Map<String, String> partitionValues,
      StoreOutputFile output,
      RowWriteSupport support,
      ParquetWriter<Object[]> writer,
      long targetSize,
      DictionaryMemory dictionaries) {
    this.partitionKey = partitionKey;
    this.key = key;
    this.partitionValues = partitionValues;
    this.output = output;
    this.support = support;
    this.writer = writer;
    this.targetSize = targetSize;
    this.dictionaries = dictionaries;
  }

  static OpenDataFile open(
      ObjectStore store,
      String key,
      List<String> partitionKey,
      Map<String, String> partitionValues,
      StructType schema,
      List<String> partitionColumns,
      MessageType fileSchema,
      DataWriteOptions options,
      SharedCodecs codecs,
      DictionaryMemory dictionaries)
      throws IOException {
    StoreOutputFile output = new StoreOutputFile(store, key);
    RowWriteSupport support = new RowWriteSupport(schema, partitionColumns, fileSchema);
    Builder builder =
        new Builder(output, support)
            .withConf(new PlainParquetConfiguration())
            .withCompressionCodec(codec(options.codec()))
            .withCodecFactory(codecs.forFile())
            .withRowGroupSize(Math.min(options.targetFileSize(), MAX_ROW_GROUP_SIZE))
            .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
            .withValidation(false);
    for (String column : dictionaries.plainColumns()) {
      builder.withDictionaryEncoding(column, false);
    }
    return new OpenDataFile(
        partitionKey,
        key,
        partitionValues,
        output,
        support,
        builder.build(),
        options.targetFileSize(),
        dictionaries);
  }

  static CompressionCodecName codec(DataWriteOptions.Codec codec) {
    return switch (codec) {
      case SNAPPY -> CompressionCodecName.SNAPPY;
      case ZSTD -> CompressionCodecName.ZSTD;
      case GZIP -> CompressionCodecName.GZIP;
      case UNCOMPRESSED -> CompressionCodecName.UNCOMPRESSED;
    };
  }

  /**
   * Writes a row.
   *
   * @return true once the file has reached its target size and should be published
   */
  boolean write(Object[] row) throws IOException {
    writer.write(row);
    if (--rowsUntilCheck > 0) {
      return false;
    }
    long size = writer.getDataSize();
    if (size >= targetSize) {
      return true;
    }
    long bytesPerRow = Math.max(1, size / support.numRecords());
    rowsUntilCheck =
        Math.max(1, Math.min(MAX_ROWS_BETWEEN_CHECKS, (targetSize - size) / bytesPerRow / 2));
    return false;
  }

  /** Completes the file (footer), publishes it in the store and describes it. */
  DataFile publish() throws IOException {
    writer.close();
    dictionaries.observe(writer.getFooter());
    return new DataFile(
        key, partitionValues, output.publishedSize(), System.currentTimeMillis(), support.stats());
  }

  /** Discards the file; nothing becomes visible. Never throws. */
  void abort() {
    try {
      output.abort();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not abort data file {}; an incomplete upload may be left behind", key, e);
    }
    try {
      // Frees Parquet's buffers; the aborted stream refuses the remaining bytes.
      writer.close();
    } catch (IOException | RuntimeException expected) {
      LOG.debug("Closing aborted data file {}: {}", key, expected.toString());
    }
  }

  String key() {
    return key;
  }

  /** Plugs our write support into Parquet's writer builder. */
  private static final class Builder extends ParquetWriter.Builder<Object[], Builder> {
    private final RowWriteSupport support;

    Builder(OutputFile file, RowWriteSupport support) {
      super(file);
      this.support = support;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Object[]> getWriteSupport(Configuration conf) {
      return support;
    }

    @Override
    protected WriteSupport<Object[]> getWriteSupport(ParquetConfiguration conf) {
      return support;
    }
  }
}
