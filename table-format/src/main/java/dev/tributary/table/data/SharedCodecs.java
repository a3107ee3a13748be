package dev.tributary.table.data;

import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * One set of compressors for every file of a {@link PartitionedDataWriter}. Each Parquet compressor
 * holds a page-sized (1 MB) output buffer, so a factory per file costs about 1 MB per open
 * partition. Sharing is safe because a writer is driven by one thread and Parquet copies each
 * compressed page out of the compressor before compressing the next. Files must not release the
 * shared compressors when they close (Parquet's writer releases its factory on close), so they get
 * {@link #forFile()}; the owner calls {@link #release()} once at the end.
 */
final class SharedCodecs {
  // ParquetCodecs holds no buffers today (it replaced Parquet's Hadoop-based factory, whose
  // compressors each held a 1 MB buffer); this class keeps one factory per writer so a pooling
  // factory can come back without touching the writers.
  private final CompressionCodecFactory factory = ParquetCodecs.INSTANCE;

  private final CompressionCodecFactory view =
      new CompressionCodecFactory() {
        @Override
        public BytesInputCompressor getCompressor(CompressionCodecName codecName) {
          return factory.getCompressor(codecName);
        }

        @Override
        public BytesInputDecompressor getDecompressor(CompressionCodecName codecName) {
          return factory.getDecompressor(codecName);
        }

        @Override
        public void release() {
          // Released by the owner, once every file is done.
        }
      };

  /** The factory to give one file's Parquet writer; its release() does nothing. */
  CompressionCodecFactory forFile() {
    return view;
  }

  /** Returns the compressors to Hadoop's pool. No file may write afterwards. */
  void release() {
    factory.release();
  }
}
