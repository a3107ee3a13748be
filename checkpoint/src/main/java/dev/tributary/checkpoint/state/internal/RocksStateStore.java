package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateMetrics;
import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.rocksdb.RocksIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link StateStore} on a local RocksDB working copy. Changes go straight into RocksDB (no heap
 * copy of the state, and reads need one lookup) and are recorded, in order, in this version's
 * {@link StateFileFormat.ChangeLog}, which the commit uploads as it is. Discarding uncommitted
 * changes therefore rebuilds the working copy from the checkpoint; that only happens when a batch
 * is retried in the same process, after a failure.
 */
public final class RocksStateStore implements StateStore {
  private static final Logger LOG = LoggerFactory.getLogger(RocksStateStore.class);

  private final StateFiles files;
  private final StateTransfer transfer;
  private final Path localDir;
  private final int snapshotInterval;
  private final StateFileFormat.ChangeLog changes = new StateFileFormat.ChangeLog();
  private final Set<PrefixIterator> openIterators = new HashSet<>();
  private LocalDb db;
  private long version;
  private long changelogsSinceSnapshot;
  private long committedKeys;
  private long committedBytes;
  private long keys;
  private long bytes;
  private long keysWritten;
  private long keysDeleted;
  private boolean closed;

  private RocksStateStore(StateFiles files, Path localDir, int snapshotInterval) {
    this.files = files;
    this.transfer = new StateTransfer(files);
    this.localDir = localDir;
    this.snapshotInterval = snapshotInterval;
  }

  /** See {@link StateStore#open(ObjectStore, String, long, Path, int)}. */
  public static StateStore open(
      ObjectStore store, String operatorId, long version, Path localDir, int snapshotInterval)
      throws IOException {
    Objects.requireNonNull(localDir, "localDir");
    StateFiles files = new StateFiles(store, operatorId);
    if (version < INITIAL_VERSION) {
      throw new IllegalArgumentException(
          "state version must be >= "
              + INITIAL_VERSION
              + ", got "
              + version
              + " for operator "
              + operatorId);
    }
    if (snapshotInterval < 1) {
      throw new IllegalArgumentException("snapshotInterval must be >= 1, got " + snapshotInterval);
    }
    RocksStateStore state = new RocksStateStore(files, localDir, snapshotInterval);
    state.load(version);
    return state;
  }

  @Override
  public String operatorId() {
    return files.operatorId();
  }

  @Override
  public long version() {
    return version;
  }

  @Override
  public byte[] get(byte[] key) {
    checkOpen();
    return db.get(Objects.requireNonNull(key, "key"));
  }

  @Override
  public void put(byte[] key, byte[] value) {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    byte[] old = db.get(key);
    if (old == null) {
      keys++;
      bytes += key.length + value.length;
    } else {
      bytes += value.length - old.length;
    }
    write(key, value);
  }

  @Override
  public boolean putIfAbsent(byte[] key, byte[] value) {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (db.get(key) != null) {
      return false;
    }
    keys++;
    bytes += key.length + value.length;
    write(key, value);
    return true;
  }

  @Override
  public boolean[] putAllIfAbsent(byte[][] candidates, byte[][] values) {
    checkOpen();
    checkPairs(candidates, values);
    boolean[] set = new boolean[candidates.length];
    if (candidates.length == 0) {
      return set;
    }
    List<byte[]> existing = db.multiGet(Arrays.asList(candidates));
    Set<ByteBuffer> seen = new HashSet<>();
    for (int i = 0; i < candidates.length; i++) {
      set[i] = existing.get(i) == null && seen.add(ByteBuffer.wrap(candidates[i]));
    }
    writeNew(candidates, values, set);
    return set;
  }

  @Override
  public void insertAll(byte[][] newKeys, byte[][] values) {
    checkOpen();
    checkPairs(newKeys, values);
    writeNew(newKeys, values, null);
  }

  private static void checkPairs(byte[][] keys, byte[][] values) {
    if (keys.length != values.length) {
      throw new IllegalArgumentException(keys.length + " keys but " + values.length + " values");
    }
    for (int i = 0; i < keys.length; i++) {
      Objects.requireNonNull(keys[i], "key");
      Objects.requireNonNull(values[i], "value");
    }
  }

  /** Writes the absent keys {@code keys[i]} (all, or those with {@code which[i]}) in one batch. */
  private void writeNew(byte[][] newKeys, byte[][] values, boolean[] which) {
    try (LocalDb.Batch batch = db.batch()) {
      for (int i = 0; i < newKeys.length; i++) {
        if (which == null || which[i]) {
          keys++;
          bytes += newKeys[i].length + values[i].length;
          batch.put(newKeys[i], values[i]);
          changes.put(newKeys[i], values[i]);
          keysWritten++;
        }
      }
      batch.write();
    }
  }

  private void write(byte[] key, byte[] value) {
    db.put(key, value);
    changes.put(key, value);
    keysWritten++;
  }

  @Override
  public void delete(byte[] key) {
    checkOpen();
    Objects.requireNonNull(key, "key");
    byte[] old = db.get(key);
    keysDeleted++;
    if (old != null) {
      keys--;
      bytes -= key.length + old.length;
      db.delete(key);
      changes.delete(key);
    }
  }

  @Override
  public void deleteKnown(byte[] key, int valueLength) {
    checkOpen();
    Objects.requireNonNull(key, "key");
    if (valueLength < 0) {
      throw new IllegalArgumentException("valueLength must be >= 0, got " + valueLength);
    }
    keysDeleted++;
    keys--;
    bytes -= key.length + (long) valueLength;
    db.delete(key);
    changes.delete(key);
  }

  @Override
  public long deleteRange(byte[] fromInclusive, byte[] toExclusive) {
    checkOpen();
    Objects.requireNonNull(fromInclusive, "fromInclusive");
    Objects.requireNonNull(toExclusive, "toExclusive");
    if (Arrays.compareUnsigned(fromInclusive, toExclusive) >= 0) {
      return 0;
    }
    long[] size = countRange(db, fromInclusive, toExclusive);
    if (size[0] == 0) {
      return 0;
    }
    keys -= size[0];
    bytes -= size[1];
    keysDeleted += size[0];
    db.deleteRange(fromInclusive, toExclusive);
    changes.deleteRange(fromInclusive, toExclusive);
    return size[0];
  }

  @Override
  public void deleteKnownRange(
      byte[] fromInclusive, byte[] toExclusive, long keyCount, long byteCount) {
    checkOpen();
    Objects.requireNonNull(fromInclusive, "fromInclusive");
    Objects.requireNonNull(toExclusive, "toExclusive");
    if (keyCount < 0 || byteCount < 0) {
      throw new IllegalArgumentException(
          "keyCount and byteCount must be >= 0, got " + keyCount + " and " + byteCount);
    }
    // The same guards as deleteRange, so that both record the same changes.
    if (keyCount == 0 || Arrays.compareUnsigned(fromInclusive, toExclusive) >= 0) {
      return;
    }
    keys -= keyCount;
    bytes -= byteCount;
    keysDeleted += keyCount;
    db.deleteRange(fromInclusive, toExclusive);
    changes.deleteRange(fromInclusive, toExclusive);
  }

  /** Number of keys and their total size in [from, to): the exact metrics of a range delete. */
  static long[] countRange(LocalDb db, byte[] from, byte[] to) {
    long[] size = {0, 0};
    try (RocksIterator it = db.iterator()) {
      for (it.seek(from); it.isValid(); it.next()) {
        byte[] key = it.key();
        if (Arrays.compareUnsigned(key, to) >= 0) {
          break;
        }
        size[0]++;
        size[1] += key.length + it.value().length;
      }
    }
    return size;
  }

  @Override
  public StateIterator scan(byte[] prefix) {
    checkOpen();
    Objects.requireNonNull(prefix, "prefix");
    PrefixIterator[] self = new PrefixIterator[1];
    self[0] = new PrefixIterator(db.iterator(), prefix, () -> openIterators.remove(self[0]));
    openIterators.add(self[0]);
    return self[0];
  }

  @Override
  public boolean commit(long newVersion) throws IOException {
    checkOpen();
    if (newVersion != version + 1) {
      throw new IllegalArgumentException(
          "State of operator "
              + operatorId()
              + " is at version "
              + version
              + ": the next commit must be version "
              + (version + 1)
              + ", not "
              + newVersion);
    }
    if (!transfer.uploadChangelog(newVersion, changes.toFile(newVersion))) {
      // An earlier attempt at this batch committed this version and then stopped before the batch
      // was marked done. Its changelog is the truth: the tables were committed together with it
      // (the engine commits state after the tables), so this attempt's changes are discarded.
      LOG.warn(
          "State of operator {}: version {} was committed by an earlier attempt at this batch"
              + " with other changes (input read in another order?); using the committed version",
          operatorId(),
          newVersion);
      closeWorkingCopy();
      load(newVersion);
      return false;
    }
    version = newVersion;
    changes.clear();
    committedKeys = keys;
    committedBytes = bytes;
    keysWritten = 0;
    keysDeleted = 0;
    changelogsSinceSnapshot++;
    if (changelogsSinceSnapshot >= snapshotInterval) {
      try {
        transfer.uploadSnapshot(version, db);
        changelogsSinceSnapshot = 0;
      } catch (IOException e) {
        // The changelog is durable, so the version is committed; a missing snapshot only makes
        // later loads replay more changelogs. The next commit tries again.
        LOG.warn(
            "State of operator {}: snapshot of version {} failed, will retry at the next"
                + " commit: {}",
            operatorId(),
            version,
            e.toString());
      }
    }
    return true;
  }

  /**
   * Discards this version's changes. They are already in the working copy, so unless there are none
   * it is rebuilt from the checkpoint at {@link #version()}.
   */
  @Override
  public void abort() throws IOException {
    checkOpen();
    keysWritten = 0;
    keysDeleted = 0;
    if (changes.isEmpty()) {
      keys = committedKeys;
      bytes = committedBytes;
      return;
    }
    closeWorkingCopy();
    load(version);
  }

  @Override
  public StateMetrics metrics() {
    return new StateMetrics(version, keys, bytes, keysWritten, keysDeleted);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeWorkingCopy();
  }

  private void closeWorkingCopy() {
    for (PrefixIterator it : List.copyOf(openIterators)) {
      it.close();
    }
    if (db != null) {
      db.close();
      db = null;
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("State store of operator " + operatorId() + " is closed");
    }
  }

  /** Builds a fresh working copy holding version {@code target}. */
  private void load(long target) throws IOException {
    StateFiles.LoadPlan plan = target == INITIAL_VERSION ? null : files.plan(target);
    LocalDb fresh = LocalDb.create(files.operatorId(), localDir);
    try {
      StateTransfer.Size size =
          plan == null ? new StateTransfer.Size(0, 0) : transfer.load(plan, fresh);
      db = fresh;
      version = target;
      changes.clear();
      keys = size.keys();
      bytes = size.bytes();
      committedKeys = keys;
      committedBytes = bytes;
      keysWritten = 0;
      keysDeleted = 0;
      changelogsSinceSnapshot = plan == null ? 0 : plan.changelogs().size();
    } catch (IOException | RuntimeException e) {
      fresh.close();
      closed = true;
      throw e;
    }
    if (plan != null) {
      LOG.info(
          "State of operator {} loaded at version {}: {} keys, {} bytes, from {} and {}"
              + " changelogs",
          operatorId(),
          target,
          keys,
          bytes,
          plan.snapshot().isPresent() ? "snapshot " + plan.snapshot().getAsLong() : "no snapshot",
          plan.changelogs().size());
    }
  }
}
