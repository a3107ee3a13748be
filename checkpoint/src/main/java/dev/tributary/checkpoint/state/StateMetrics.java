package dev.tributary.checkpoint.state;

/**
 * A store's size and this version's activity, including changes not yet committed.
 *
 * @param version the last committed version ({@link StateStore#INITIAL_VERSION} if none)
 * @param keys exact number of keys
 * @param bytes exact total size of keys and values, in bytes (the logical size, not the size on
 *     disk)
 * @param keysWritten keys written by {@code put} and {@code putIfAbsent} since the last commit
 * @param keysDeleted {@code delete} calls plus keys removed by {@code deleteRange} since the last
 *     commit
 */
public record StateMetrics(
    long version, long keys, long bytes, long keysWritten, long keysDeleted) {}
