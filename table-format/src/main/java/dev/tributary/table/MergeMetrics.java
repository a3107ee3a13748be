package dev.tributary.table;

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
    long indexedRows) {

  /** Nothing merged (an empty or skipped transaction). */
  public static final MergeMetrics NONE = new MergeMetrics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
