package dev.tributary.checkpoint.state;

import dev.tributary.checkpoint.state.internal.RocksStateStore;
import dev.tributary.checkpoint.state.internal.StateFiles;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The versioned key/value state of one stateful operator.
 *
 * <p>Lifecycle, per batch {@code N}: the store is at version {@code N-1} (opened there, or
 * committed there by the previous batch); the operator reads and changes it ({@link #get}, {@link
 * #put}, {@link #putIfAbsent}, {@link #delete}, {@link #deleteRange}, {@link #scan}, and their
 * variants); {@link #commit commit(N)} uploads the changes, in the order they were made, as the
 * changelog {@code state/<operatorId>/<N>.delta} with put-if-absent, and every {@code
 * snapshotInterval} versions uploads a full snapshot {@code <N>.snapshot}. Opening version {@code
 * v} loads the latest snapshot at or below {@code v} and applies the changelogs after it, so it
 * yields exactly the state after batch {@code v}; uncommitted changes are never uploaded and are
 * lost on close or reopen.
 *
 * <p>Keys and values are byte arrays; keys sort in unsigned-byte order. The store is not
 * thread-safe: one operator instance uses it from one thread. It owns its local directory.
 */
public interface StateStore extends AutoCloseable {
  /** The version of the empty state before batch 0. */
  long INITIAL_VERSION = -1;

  /**
   * How many versions {@link #open(ObjectStore, String, long, Path)} lets pass between snapshots.
   */
  int DEFAULT_SNAPSHOT_INTERVAL = 10;

  /**
   * Opens the state of {@code operatorId} at {@code version}, with a snapshot every {@value
   * #DEFAULT_SNAPSHOT_INTERVAL} versions.
   *
   * @see #open(ObjectStore, String, long, Path, int)
   */
  static StateStore open(
      ObjectStore checkpointStore, String operatorId, long version, Path localDir)
      throws IOException {
    return open(checkpointStore, operatorId, version, localDir, DEFAULT_SNAPSHOT_INTERVAL);
  }

  /**
   * Opens the state of {@code operatorId} exactly as it was after batch {@code version} ({@link
   * #INITIAL_VERSION} for the empty state).
   *
   * @param checkpointStore the store rooted at the pipeline's checkpoint location; not closed
   * @param operatorId the operator's stable name: letters, digits, '.', '_' and '-'
   * @param localDir a directory this store owns for its working copy: created if missing; it must
   *     be empty or a directory a previous state store used (its contents are then replaced)
   * @param snapshotInterval how many changelogs may follow a snapshot before the next one, >= 1
   * @throws dev.tributary.checkpoint.CorruptCheckpointException if a file needed for the version is
   *     missing, truncated, fails its checksum or is not a state file
   * @throws IOException if the checkpoint store or the local directory fails
   */
  static StateStore open(
      ObjectStore checkpointStore,
      String operatorId,
      long version,
      Path localDir,
      int snapshotInterval)
      throws IOException {
    return RocksStateStore.open(checkpointStore, operatorId, version, localDir, snapshotInterval);
  }

  /**
   * Deletes the state files of {@code operatorId} that no version at or after {@code
   * oldestVersionToKeep} needs: everything before the latest snapshot at or below it. Keeps
   * everything if there is no such snapshot.
   *
   * @return the number of files deleted
   */
  static int purge(ObjectStore checkpointStore, String operatorId, long oldestVersionToKeep)
      throws IOException {
    return new StateFiles(checkpointStore, operatorId).purgeBefore(oldestVersionToKeep);
  }

  /** The operator whose state this is. */
  String operatorId();

  /** The last committed version: the one opened, or the last {@link #commit}. */
  long version();

  /** The value of {@code key}, or null if it has none. Sees this version's uncommitted changes. */
  byte[] get(byte[] key);

  /** Sets the value of {@code key}; uncommitted until {@link #commit}. Arrays are copied. */
  void put(byte[] key, byte[] value);

  /**
   * Sets the value of {@code key} unless it has one: one lookup where {@code get} then {@code put}
   * would need two. Uncommitted until {@link #commit}.
   *
   * @return true if the key had no value and now has {@code value}
   */
  boolean putIfAbsent(byte[] key, byte[] value);

  /**
   * {@link #putIfAbsent} for many keys at once, in order (so of two equal keys only the first is
   * set): one batched lookup and one batched write instead of two native calls per key.
   *
   * @param values {@code values[i]} is the value for {@code keys[i]}
   * @return {@code set[i]} true if {@code keys[i]} was set
   */
  boolean[] putAllIfAbsent(byte[][] keys, byte[][] values);

  /**
   * Sets keys the caller knows have no value (ruled out by its own index or filter), without
   * looking them up: the cheapest write. Setting a key that has a value replaces it but leaves the
   * size {@link #metrics() metrics} off by that entry.
   *
   * @param values {@code values[i]} is the value for {@code keys[i]}
   */
  void insertAll(byte[][] keys, byte[][] values);

  /** Removes {@code key} if present; uncommitted until {@link #commit}. */
  void delete(byte[] key);

  /**
   * Removes {@code key}, which the caller knows holds a value of {@code valueLength} bytes (its own
   * index records the size), without reading it: {@link #delete} reads the old value only to keep
   * the size {@link #metrics() metrics} exact. Records the same change as {@link #delete}, so the
   * changelog, and the state any later version reloads, are the same. Uncommitted until {@link
   * #commit}.
   *
   * <p>The caller guarantees that the key exists and that its value is {@code valueLength} bytes
   * long. If it does not, only the metrics are wrong (the key is absent afterwards either way; an
   * absent key also gets a harmless delete record in the changelog, which {@link #delete} would not
   * write): {@link StateMetrics#keys()} and {@link StateMetrics#bytes()} stay off by the difference
   * until the store is next opened, which recounts them from the loaded state.
   *
   * @throws IllegalArgumentException if {@code valueLength} is negative
   */
  void deleteKnown(byte[] key, int valueLength);

  /**
   * Removes every key {@code k} with {@code fromInclusive <= k < toExclusive} (unsigned byte order)
   * at the cost of one range tombstone plus a read of the range for the exact metrics: the way to
   * evict state laid out in eviction order. Uncommitted until {@link #commit}.
   *
   * @return the number of keys removed
   */
  long deleteRange(byte[] fromInclusive, byte[] toExclusive);

  /**
   * {@link #deleteRange} of a range whose contents the caller knows (it has just walked the range,
   * or keeps its own counters): one range tombstone, without reading the range again for the
   * metrics. Records the same change as {@link #deleteRange} (nothing when {@code keyCount} is 0),
   * so the changelog, and the state any later version reloads, are the same. Uncommitted until
   * {@link #commit}.
   *
   * <p>The caller guarantees that the range holds exactly {@code keyCount} keys whose keys' and
   * values' lengths add up to {@code byteCount}. If it does not, every key in the range is still
   * removed and only the metrics are wrong: {@link StateMetrics#keys()}, {@link
   * StateMetrics#bytes()} and {@link StateMetrics#keysDeleted()} stay off by the difference until
   * the store is next opened, which recounts them from the loaded state.
   *
   * @param keyCount the number of keys in the range, >= 0
   * @param byteCount the total length of those keys and their values, >= 0
   * @throws IllegalArgumentException if a count is negative
   */
  void deleteKnownRange(byte[] fromInclusive, byte[] toExclusive, long keyCount, long byteCount);

  /** Every entry whose key starts with {@code prefix} (empty prefix: all), in key order. */
  StateIterator scan(byte[] prefix);

  /**
   * Makes this version's changes durable as version {@code newVersion}, which must be {@link
   * #version()} + 1. If the changelog already exists, an earlier attempt at the same batch
   * committed it (a replay after a crash between the state commit and the batch's commits entry):
   * with the same content this is a no-op success; with other content the existing version wins,
   * the working copy is rebuilt at it and this attempt's changes are discarded. A replay is never
   * taken for a second writer: two processes on one checkpoint are fenced by the checkpoint's
   * offsets and commits logs, not here.
   *
   * @return true if this attempt's changes are the version; false if an earlier attempt's version
   *     was adopted (caches built from this attempt's changes should be rebuilt from the store)
   * @throws IOException if the upload fails; the changes stay pending and commit can be retried
   */
  boolean commit(long newVersion) throws IOException;

  /**
   * Discards this version's uncommitted changes. Cheap when there are none; otherwise the working
   * copy is reloaded from the checkpoint, as a reopen at {@link #version()} would.
   *
   * @throws IOException if the reload fails; the store is then closed
   */
  void abort() throws IOException;

  /** Size and activity counters. */
  StateMetrics metrics();

  /** Closes the working copy and deletes it from the local directory; pending changes are lost. */
  @Override
  void close();
}
