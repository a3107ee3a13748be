package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateMetrics;
import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link StateStore} on a local RocksDB working copy. This version's changes are kept in a sorted
 * map on the heap (they are one batch's worth, and become the changelog as they are); the
 * committed state lives only in RocksDB.
 */
public final class RocksStateStore implements StateStore {
  private static final Logger LOG = LoggerFactory.getLogger(RocksStateStore.class);

  private final StateFiles files;
  private final StateTransfer transfer;
  private final LocalDb db;
  private final int snapshotInterval;
  /** This version's changes, by key; a null value is a delete. */
  private final TreeMap<byte[], byte[]> pending = new TreeMap<>(Arrays::compareUnsigned);
  private final Set<MergedIterator> openIterators = new HashSet<>();
  private long version;
  private long changelogsSinceSnapshot;
  private long committedKeys;
  private long committedBytes;
  private long keys;
  private long bytes;
  private long keysWritten;
  private long keysDeleted;
  private boolean closed;

  private RocksStateStore(StateFiles files, LocalDb db, int snapshotInterval) {
    this.files = files;
    this.transfer = new StateTransfer(files);
    this.db = db;
    this.snapshotInterval = snapshotInterval;
  }

  /** See {@link StateStore#open(ObjectStore, String, long, Path, int)}. */
  public static StateStore open(ObjectStore store, String operatorId, long version, Path localDir,
      int snapshotInterval) throws IOException {
    Objects.requireNonNull(localDir, "localDir");
    StateFiles files = new StateFiles(store, operatorId);
    if (version < INITIAL_VERSION) {
      throw new IllegalArgumentException("state version must be >= " + INITIAL_VERSION + ", got "
          + version + " for operator " + operatorId);
    }
    if (snapshotInterval < 1) {
      throw new IllegalArgumentException("snapshotInterval must be >= 1, got " + snapshotInterval);
    }
    StateFiles.LoadPlan plan = version == INITIAL_VERSION ? null : files.plan(version);
    RocksStateStore state =
        new RocksStateStore(files, LocalDb.create(operatorId, localDir), snapshotInterval);
    try {
      state.load(version, plan);
      return state;
    } catch (IOException | RuntimeException e) {
      state.close();
      throw e;
    }
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
    Objects.requireNonNull(key, "key");
    if (pending.containsKey(key)) {
      byte[] value = pending.get(key);
      return value == null ? null : value.clone();
    }
    return db.get(key);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    byte[] old = get(key);
    if (old == null) {
      keys++;
      bytes += key.length + value.length;
    } else {
      bytes += value.length - old.length;
    }
    pending.put(key.clone(), value.clone());
    keysWritten++;
  }

  @Override
  public void delete(byte[] key) {
    checkOpen();
    Objects.requireNonNull(key, "key");
    byte[] old = get(key);
    if (old != null) {
      keys--;
      bytes -= key.length + old.length;
    }
    pending.put(key.clone(), null);
    keysDeleted++;
  }

  @Override
  public StateIterator scan(byte[] prefix) {
    checkOpen();
    Objects.requireNonNull(prefix, "prefix");
    List<Map.Entry<byte[], byte[]>> changes = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : pending.tailMap(prefix, true).entrySet()) {
      byte[] k = e.getKey();
      if (k.length < prefix.length || !Arrays.equals(k, 0, prefix.length, prefix, 0,
          prefix.length)) {
        break;
      }
      changes.add(new AbstractMap.SimpleImmutableEntry<>(k, e.getValue()));
    }
    MergedIterator[] self = new MergedIterator[1];
    self[0] = new MergedIterator(db.iterator(), changes, prefix, () -> openIterators.remove(self[0]));
    openIterators.add(self[0]);
    return self[0];
  }

  @Override
  public void commit(long newVersion) throws IOException {
    checkOpen();
    if (newVersion != version + 1) {
      throw new IllegalArgumentException("State of operator " + operatorId() + " is at version "
          + version + ": the next commit must be version " + (version + 1) + ", not "
          + newVersion);
    }
    transfer.uploadChangelog(newVersion, StateTransfer.encodeChangelog(newVersion, pending));
    try (LocalDb.Batch batch = db.batch()) {
      for (Map.Entry<byte[], byte[]> e : pending.entrySet()) {
        if (e.getValue() == null) {
          batch.delete(e.getKey());
        } else {
          batch.put(e.getKey(), e.getValue());
        }
      }
      batch.write();
    }
    version = newVersion;
    pending.clear();
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
        LOG.warn("State of operator {}: snapshot of version {} failed, will retry at the next"
            + " commit: {}", operatorId(), version, e.toString());
      }
    }
  }

  @Override
  public void abort() {
    checkOpen();
    pending.clear();
    keys = committedKeys;
    bytes = committedBytes;
    keysWritten = 0;
    keysDeleted = 0;
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
    for (MergedIterator it : List.copyOf(openIterators)) {
      it.close();
    }
    db.close();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("State store of operator " + operatorId() + " is closed");
    }
  }

  private void load(long target, StateFiles.LoadPlan plan) throws IOException {
    version = target;
    if (plan == null) {
      return;
    }
    StateTransfer.Size size = transfer.load(plan, db);
    keys = size.keys();
    bytes = size.bytes();
    committedKeys = keys;
    committedBytes = bytes;
    changelogsSinceSnapshot = plan.changelogs().size();
    LOG.info("State of operator {} loaded at version {}: {} keys, {} bytes, from {} and {}"
        + " changelogs", operatorId(), target, keys, bytes,
        plan.snapshot().isPresent() ? "snapshot " + plan.snapshot().getAsLong() : "no snapshot",
        plan.changelogs().size());
  }
}
