package dev.tributary.table.data;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Which columns of a table's data files are not worth dictionary-encoding, remembered from one file
 * to the next, so that a writer stops paying for dictionaries Parquet throws away.
 *
 * <p>Parquet tries a dictionary for every column of every file: it hashes each value into a
 * dictionary and falls back to plain encoding when the dictionary grows past its page size or does
 * not make the first page smaller. A column of unique values (event ids, session ids, timestamps in
 * microseconds) always falls back, after its values were hashed and buffered twice; profiling a
 * bronze pipeline found 70% of the file writer's CPU there. So the files a writer publishes are
 * {@link #observe observed}: a column whose chunk fell back (data pages not dictionary-encoded) is
 * written plain in the next files of the same table, and tried with a dictionary again every
 * {@value #RETRY_EVERY} files, since data changes (a column of few values after a deploy gets its
 * dictionary back within that many files). Only the encoding changes: readers see the same values.
 *
 * <p>One instance per table writer (a sink keeps it across batches); thread-safe, since a file is
 * published on its writer's thread while the next may be opened elsewhere.
 */
public final class DictionaryMemory {
  /** How many files a fallen-back column stays plain before a dictionary is tried again. */
  static final int RETRY_EVERY = 32;

  /** Per column path (dot-joined): files published since it last fell back. */
  private final Map<String, Integer> plainSince = new HashMap<>();

  /** The columns the next file writes without a dictionary (dot-joined paths). */
  public synchronized Set<String> plainColumns() {
    return new TreeSet<>(plainSince.keySet());
  }

  /**
   * Learns from a published file: columns whose pages fell back to plain encoding are written plain
   * in the next files; the {@value #RETRY_EVERY}th file after a column fell back tries its
   * dictionary again.
   */
  public synchronized void observe(ParquetMetadata footer) {
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        if (fellBack(chunk.getEncodingStats())) {
          plainSince.putIfAbsent(chunk.getPath().toDotString(), 0);
        }
      }
    }
    plainSince.replaceAll((column, files) -> files + 1);
    plainSince.values().removeIf(files -> files >= RETRY_EVERY);
  }

  /** Data pages not dictionary-encoded while Parquet tried a dictionary (or was told not to). */
  private static boolean fellBack(EncodingStats stats) {
    return stats != null && stats.hasNonDictionaryEncodedPages();
  }
}
