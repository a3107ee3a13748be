package dev.tributary.checkpoint.state.internal;

import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectWriter;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.rocksdb.RocksIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves state between the checkpoint and the local working copy: uploads changelogs and snapshots,
 * and loads a version into an empty working copy.
 */
final class StateTransfer {
  private static final Logger LOG = LoggerFactory.getLogger(StateTransfer.class);
  private static final int BUFFER = 1 << 16;
  // Bulk loads are written in chunks so a large snapshot never sits in one native batch.
  private static final int LOAD_CHUNK = 10_000;

  /** Exact key count and logical size (keys + values) of a loaded state. */
  record Size(long keys, long bytes) {}

  private final StateFiles files;
  private final ObjectStore store;

  StateTransfer(StateFiles files) {
    this.files = files;
    this.store = files.store();
  }

  /**
   * Creates the changelog of {@code version} with put-if-absent. An error whose outcome is unknown
   * is resolved by reading, never by deleting.
   *
   * @return true if the file now holds {@code data} (created, or it already held the same bytes);
   *     false if it already existed with other bytes: an earlier attempt at this batch committed
   *     this version, and that changelog is the version's state
   */
  boolean uploadChangelog(long version, byte[] data) throws IOException {
    String key = files.changelogKey(version);
    boolean created;
    try {
      created = store.putIfAbsent(key, data);
    } catch (IOException unknown) {
      byte[] existing;
      try {
        existing = store.read(key);
      } catch (ObjectNotFoundException notCreated) {
        throw unknown;
      } catch (IOException readFailed) {
        unknown.addSuppressed(readFailed);
        throw unknown;
      }
      return Arrays.equals(existing, data);
    }
    if (!created) {
      boolean same = Arrays.equals(store.read(key), data);
      LOG.info(
          "State of operator {}: changelog '{}' already existed {} (replay of a batch whose"
              + " state was committed)",
          files.operatorId(),
          key,
          same ? "with the same content" : "with other content");
      return same;
    }
    return true;
  }

  /**
   * Streams the whole working copy as the snapshot of {@code version}, unless that snapshot exists
   * already (its content is determined by the version, so it is the same).
   */
  void uploadSnapshot(long version, LocalDb db) throws IOException {
    String key = files.snapshotKey(version);
    if (files.exists(key)) {
      return;
    }
    ObjectWriter out = store.create(key);
    try (RocksIterator it = db.iterator()) {
      BufferedOutputStream buffered = new BufferedOutputStream(out, BUFFER);
      StateFileFormat.Writer writer = new StateFileFormat.Writer(buffered, version);
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

  /** Loads the files of {@code plan} into the empty working copy {@code db}. */
  Size load(StateFiles.LoadPlan plan, LocalDb db) throws IOException {
    long[] size = {0, 0};
    if (plan.snapshot().isPresent()) {
      long snapshot = plan.snapshot().getAsLong();
      String key = files.snapshotKey(snapshot);
      try (LocalDb.Batch batch = db.batch();
          InputStream in = new BufferedInputStream(store.open(key), BUFFER)) {
        StateFileFormat.read(
            in,
            store.location(),
            key,
            StateFileFormat.SNAPSHOT,
            snapshot,
            (k, v) -> {
              size[0]++;
              size[1] += k.length + v.length;
              batch.put(k, v);
              if (batch.count() >= LOAD_CHUNK) {
                batch.write();
              }
            });
        batch.write();
      }
    }
    for (long version : plan.changelogs()) {
      String key = files.changelogKey(version);
      // Operations are applied one by one, in order: a key may appear more than once, and the
      // exact size needs the value each one replaces.
      try (InputStream in = new BufferedInputStream(store.open(key), BUFFER)) {
        StateFileFormat.read(
            in,
            store.location(),
            key,
            StateFileFormat.CHANGELOG,
            version,
            new StateFileFormat.RecordSink() {
              @Override
              public void accept(byte[] k, byte[] v) {
                byte[] old = db.get(k);
                if (old != null) {
                  size[0]--;
                  size[1] -= k.length + old.length;
                }
                if (v == null) {
                  db.delete(k);
                } else {
                  size[0]++;
                  size[1] += k.length + v.length;
                  db.put(k, v);
                }
              }

              @Override
              public void deleteRange(byte[] from, byte[] to) {
                long[] range = RocksStateStore.countRange(db, from, to);
                size[0] -= range[0];
                size[1] -= range[1];
                db.deleteRange(from, to);
              }
            });
      }
    }
    return new Size(size[0], size[1]);
  }
}
