package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.internal.CheckpointErrors;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateMetrics;
import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectWriter;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
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
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link StateStore} on a local RocksDB working copy. This version's changes are kept in a sorted
 * map on the heap (they are one batch's worth, and become the changelog as they are); the
 * committed state lives only in RocksDB.
 */
public final class RocksStateStore implements StateStore {
  private static final Logger LOG = LoggerFactory.getLogger(RocksStateStore.class);
  // Bulk loads are written in chunks so a large snapshot never sits in one native batch.
  private static final int LOAD_CHUNK = 10_000;

  private final StateFiles files;
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
    String key = files.changelogKey(newVersion);
    byte[] changelog = changelogBytes(newVersion);
    upload(key, changelog);
    try (WriteBatch batch = new WriteBatch()) {
      for (Map.Entry<byte[], byte[]> e : pending.entrySet()) {
        if (e.getValue() == null) {
          batchDelete(batch, e.getKey());
        } else {
          batchPut(batch, e.getKey(), e.getValue());
        }
      }
      db.write(batch);
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
        writeSnapshot();
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

  private byte[] changelogBytes(long newVersion) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StateFileFormat.Writer writer = new StateFileFormat.Writer(out, StateFileFormat.CHANGELOG,
        newVersion);
    for (Map.Entry<byte[], byte[]> e : pending.entrySet()) {
      writer.record(e.getKey(), e.getValue());
    }
    writer.finish();
    return out.toByteArray();
  }

  /** Put-if-absent; an existing equal file is our own replay, a different one a conflict. */
  private void upload(String key, byte[] data) throws IOException {
    ObjectStore store = files.store();
    boolean created;
    try {
      created = store.putIfAbsent(key, data);
    } catch (IOException unknown) {
      // Outcome unknown: resolve by reading, never by deleting.
      byte[] existing;
      try {
        existing = store.read(key);
      } catch (ObjectNotFoundException notCreated) {
        throw unknown;
      } catch (IOException readFailed) {
        unknown.addSuppressed(readFailed);
        throw unknown;
      }
      checkSame(key, existing, data);
      return;
    }
    if (!created) {
      checkSame(key, store.read(key), data);
      LOG.info("State of operator {}: changelog '{}' already existed with the same content"
          + " (replay of a committed batch)", operatorId(), key);
    }
  }

  private void checkSame(String key, byte[] existing, byte[] ours) throws IOException {
    if (!Arrays.equals(existing, ours)) {
      throw CheckpointErrors.stateConflict(files.store().location(), key, operatorId());
    }
  }

  private void writeSnapshot() throws IOException {
    String key = files.snapshotKey(version);
    if (files.exists(key)) {
      return; // written by an earlier run of this same version; content is determined by it
    }
    ObjectWriter out = files.store().create(key);
    try (RocksIterator it = db.iterator()) {
      BufferedOutputStream buffered = new BufferedOutputStream(out, 1 << 16);
      StateFileFormat.Writer writer =
          new StateFileFormat.Writer(buffered, StateFileFormat.SNAPSHOT, version);
      for (it.seekToFirst(); it.isValid(); it.next()) {
        writer.record(it.key(), it.value());
      }
      writer.finish();
      buffered.flush();
    } catch (IOException | RuntimeException e) {
      out.abort();
      throw e;
    }
    out.close();
  }

  private void load(long target, StateFiles.LoadPlan plan) throws IOException {
    version = target;
    if (plan == null) {
      return;
    }
    long base = -1;
    if (plan.snapshot().isPresent()) {
      base = plan.snapshot().getAsLong();
      loadSnapshot(base);
    }
    for (long v : plan.changelogs()) {
      applyChangelog(v);
    }
    committedKeys = keys;
    committedBytes = bytes;
    changelogsSinceSnapshot = plan.changelogs().size();
    LOG.info("State of operator {} loaded at version {}: {} keys, {} bytes, from {} and {}"
        + " changelogs", operatorId(), target, keys, bytes,
        base < 0 ? "no snapshot" : "snapshot " + base, plan.changelogs().size());
  }

  private void loadSnapshot(long snapshotVersion) throws IOException {
    String key = files.snapshotKey(snapshotVersion);
    WriteBatch[] batch = {new WriteBatch()};
    try (InputStream in = new BufferedInputStream(files.store().open(key), 1 << 16)) {
      StateFileFormat.read(in, files.store().location(), key, StateFileFormat.SNAPSHOT,
          snapshotVersion, (k, v) -> {
            keys++;
            bytes += k.length + v.length;
            batchPut(batch[0], k, v);
            if (batch[0].count() >= LOAD_CHUNK) {
              db.write(batch[0]);
              batch[0].close();
              batch[0] = new WriteBatch();
            }
          });
      db.write(batch[0]);
    } finally {
      batch[0].close();
    }
  }

  private void applyChangelog(long changelogVersion) throws IOException {
    String key = files.changelogKey(changelogVersion);
    // Each key appears once per changelog, so reading the old values from the database before
    // the batch is written gives the right counts.
    try (WriteBatch batch = new WriteBatch();
        InputStream in = new BufferedInputStream(files.store().open(key), 1 << 16)) {
      StateFileFormat.read(in, files.store().location(), key, StateFileFormat.CHANGELOG,
          changelogVersion, (k, v) -> {
            byte[] old = db.get(k);
            if (old != null) {
              keys--;
              bytes -= k.length + old.length;
            }
            if (v == null) {
              batchDelete(batch, k);
            } else {
              keys++;
              bytes += k.length + v.length;
              batchPut(batch, k, v);
            }
          });
      db.write(batch);
    }
  }

  private void batchPut(WriteBatch batch, byte[] key, byte[] value) {
    try {
      batch.put(key, value);
    } catch (RocksDBException e) {
      throw CheckpointErrors.localStateFailed(operatorId(), db.dir().toString(), "write", e);
    }
  }

  private void batchDelete(WriteBatch batch, byte[] key) {
    try {
      batch.delete(key);
    } catch (RocksDBException e) {
      throw CheckpointErrors.localStateFailed(operatorId(), db.dir().toString(), "write", e);
    }
  }
}
