package dev.tributary.table;

import dev.tributary.table.data.DataFile;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a merge did, also recorded in its commit's {@code operationMetrics} under Delta's names.
 *
 * @param changes the changes merged, one per key (after the batch collapsed them)
 * @param inserted keys the table did not hold, now added
 * @param updated rows replaced by a new version of their key
 * @param deleted rows deleted
 * @param ignoredOlder changes whose sequence value was below the table row's: not applied
 * @param copied rows of rewritten files copied unchanged (copy-on-write's cost)
 * @param filesRemoved data files the commit removes
 * @param filesAdded data files the commit adds
 * @param bytesRemoved the size of the files removed
 * @param bytesAdded the size of the files added
 * @param indexedRows rows whose keys were read to bring the key index up to date (the files
 *     committed since the previous merge; the whole table on the first merge of a handle)
 * @param vectorsAdded deletion vectors: files that got their first deletion vector
 * @param vectorsUpdated deletion vectors: files whose deletion vector was replaced by a larger one
 */
public record MergeMetrics(
    long changes,
    long inserted,
    long updated,
    long deleted,
    long ignoredOlder,
    long copied,
    int filesRemoved,
    int filesAdded,
    long bytesRemoved,
    long bytesAdded,
    long indexedRows,
    int vectorsAdded,
    int vectorsUpdated) {

  /** Nothing merged (an empty or skipped transaction). */
  public static final MergeMetrics NONE = new MergeMetrics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** A copy-on-write merge's metrics: no deletion vectors. */
  MergeMetrics(
      long changes,
      long inserted,
      long updated,
      long deleted,
      long ignoredOlder,
      long copied,
      int filesRemoved,
      int filesAdded,
      long bytesRemoved,
      long bytesAdded,
      long indexedRows) {
    this(
        changes,
        inserted,
        updated,
        deleted,
        ignoredOlder,
        copied,
        filesRemoved,
        filesAdded,
        bytesRemoved,
        bytesAdded,
        indexedRows,
        0,
        0);
  }

  /** These metrics with the files a commit adds counted. */
  MergeMetrics withAdded(List<DataFile> added) {
    return new MergeMetrics(
        changes,
        inserted,
        updated,
        deleted,
        ignoredOlder,
        copied,
        filesRemoved,
        added.size(),
        bytesRemoved,
        added.stream().mapToLong(DataFile::size).sum(),
        indexedRows,
        vectorsAdded,
        vectorsUpdated);
  }

  /**
   * The {@code operationMetrics} every MERGE commit records, under Spark's names (string values); a
   * merge adds its own (deletes, ignored changes) after them.
   */
  Map<String, Object> operationMetrics() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("numSourceRows", Long.toString(changes));
    m.put("numTargetRowsInserted", Long.toString(inserted));
    m.put("numTargetRowsUpdated", Long.toString(updated));
    m.put("numTargetRowsMatchedUpdated", Long.toString(updated));
    return m;
  }

  /** The file and output counts of {@link #operationMetrics}, which follow the row counts. */
  void putFileMetrics(Map<String, Object> m) {
    m.put("numTargetRowsCopied", Long.toString(copied));
    m.put("numOutputRows", Long.toString(inserted + updated + copied));
    m.put("numTargetFilesAdded", Integer.toString(filesAdded));
    m.put("numTargetFilesRemoved", Integer.toString(filesRemoved));
    m.put("numTargetBytesAdded", Long.toString(bytesAdded));
    m.put("numTargetBytesRemoved", Long.toString(bytesRemoved));
    if (vectorsAdded + vectorsUpdated > 0) {
      m.put("numTargetDeletionVectorsAdded", Integer.toString(vectorsAdded));
      m.put("numTargetDeletionVectorsUpdated", Integer.toString(vectorsUpdated));
      m.put("numTargetDeletionVectorsRemoved", "0");
    }
  }

  /** A merge's key condition as Spark records it: {@code target.k <=> source.k AND …}. */
  static String keyPredicate(List<String> keyColumns) {
    StringBuilder predicate = new StringBuilder();
    for (String k : keyColumns) {
      predicate.append(predicate.length() == 0 ? "" : " AND ").append("target.").append(k);
      predicate.append(" <=> source.").append(k);
    }
    return "[\"" + (predicate.length() == 0 ? "true" : predicate) + "\"]";
  }

  /** The key of {@code row}: its {@code keyColumns} values, binary ones comparable by content. */
  static List<Object> key(Object[] row, int[] keyColumns) {
    List<Object> k = new ArrayList<>(keyColumns.length);
    for (int c : keyColumns) {
      Object v = row[c];
      k.add(v instanceof byte[] b ? ByteBuffer.wrap(b) : v);
    }
    return k;
  }

  /** The remove actions of the files a merge rewrites. */
  static List<Action> removals(List<AddFile> rewritten, long now) {
    List<Action> removes = new ArrayList<>();
    for (AddFile f : rewritten) {
      removes.add(f.toRemove(now, true /* dataChange */));
    }
    return removes;
  }
}
