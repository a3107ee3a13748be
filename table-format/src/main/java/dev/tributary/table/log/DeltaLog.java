package dev.tributary.table.log;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.TableErrors;
import dev.tributary.table.TableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes one table's {@code _delta_log/}. Low level: the table facade ({@code
 * dev.tributary.table.DeltaTable}) adds conflict checks and retries on top.
 *
 * <p>Replay rules:
 *
 * <ol>
 *   <li>Read {@code _last_checkpoint} if present; list {@code _delta_log/} from that version (or
 *       from the start) with a sorted listing.
 *   <li>Start from the newest checkpoint in the listing (if any: classic, or UUID-named V2 in JSON
 *       or Parquet with its sidecars; multi-part ones are ignored), then apply every JSON commit
 *       after it in version order. Versions must be contiguous: from 0 without a checkpoint, from
 *       checkpoint + 1 with one; a gap is an error naming the missing file.
 *   <li>The result must hold a protocol and a metadata; the protocol must be one we read.
 * </ol>
 *
 * <p>Thread-safe: it holds no mutable state.
 */
public final class DeltaLog {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaLog.class);

  /** Delta's default for {@code delta.deletedFileRetentionDuration}. */
  static final Duration DEFAULT_TOMBSTONE_RETENTION = Duration.ofDays(7);

  private final ObjectStore store;

  public DeltaLog(ObjectStore store) {
    this.store = store;
  }

  /** The store holding the table (its root is the table root). */
  public ObjectStore store() {
    return store;
  }

  /** The table location, for messages. */
  public String location() {
    return store.location();
  }

  /**
   * Replays the log to its latest version.
   *
   * @return empty if the table has no log at all
   * @throws TableException if the log is corrupt, has a gap, or needs a reader we are not
   */
  public Optional<TableState> load() throws IOException {
    long hint = readLastCheckpointVersion();
    List<ObjectInfo> listing =
        store.list(LogFiles.LOG_DIR, hint >= 0 ? LogFiles.versionPrefix(hint) : null);
    long checkpoint = newestCheckpoint(listing);
    if (hint >= 0 && checkpoint < 0) {
      // _last_checkpoint points at a checkpoint we cannot use: fall back to the whole log.
      listing = store.list(LogFiles.LOG_DIR, null);
      checkpoint = newestCheckpoint(listing);
    }
    List<Long> commits = commitVersionsAfter(listing, checkpoint);
    if (checkpoint < 0 && commits.isEmpty()) {
      return Optional.empty();
    }
    StateBuilder builder = new StateBuilder();
    if (checkpoint >= 0) {
      builder.apply(checkpoint, readCheckpoint(checkpoint, listing));
    } else if (commits.get(0) != 0) {
      throw TableErrors.noStartingPoint(location(), commits.get(0));
    }
    replay(builder, commits);
    if (!builder.complete()) {
      throw TableErrors.badAction(
          location(),
          LogFiles.commit(builder.version()),
          "the log up to this version holds no protocol or no metaData action");
    }
    TableState state = builder.build();
    ProtocolSupport.checkReadable(location(), state.version(), state.protocol(), state.metadata());
    return Optional.of(state);
  }

  /**
   * Replays the log up to and including {@code version} (time travel, as a streaming read needs for
   * the snapshot it started from): the newest classic checkpoint at or below {@code version}, then
   * the commits after it up to {@code version}, without a gap.
   *
   * @throws TableException if {@code version} was never committed, or if the log no longer holds
   *     what rebuilding it needs (its commits were cleaned up and no checkpoint at or below it is
   *     left), or if the table at that version needs a reader we are not
   */
  public TableState loadAt(long version) throws IOException {
    List<ObjectInfo> listing = store.list(LogFiles.LOG_DIR, null);
    long checkpoint = -1;
    for (ObjectInfo o : listing) {
      long c = LogFiles.checkpointVersion(o.key());
      if (c <= version) {
        checkpoint = Math.max(checkpoint, c);
      }
    }
    List<Long> commits = new ArrayList<>();
    for (long v : commitVersionsAfter(listing, checkpoint)) {
      if (v <= version) {
        commits.add(v);
      }
    }
    if (checkpoint < 0 && (commits.isEmpty() || commits.get(0) != 0)) {
      throw TableErrors.versionNotReconstructable(
          location(),
          version,
          commits.isEmpty()
              ? "no commit or checkpoint at or below it is left"
              : "the log starts at version "
                  + commits.get(0)
                  + " and no checkpoint is at or below it");
    }
    StateBuilder builder = new StateBuilder();
    if (checkpoint >= 0) {
      builder.apply(checkpoint, readCheckpoint(checkpoint, listing));
    }
    replay(builder, commits);
    if (builder.version() != version) {
      throw TableErrors.versionNotCommitted(location(), version, builder.version());
    }
    if (!builder.complete()) {
      throw TableErrors.badAction(
          location(),
          LogFiles.commit(version),
          "the log up to this version holds no protocol or no metaData action");
    }
    TableState state = builder.build();
    ProtocolSupport.checkReadable(location(), state.version(), state.protocol(), state.metadata());
    return state;
  }

  /**
   * The commit files at or after {@code fromVersion}, ascending by version, with their size and
   * modification time (Delta's commit timestamp when in-commit timestamps are off).
   */
  public List<ObjectInfo> commitFiles(long fromVersion) throws IOException {
    List<ObjectInfo> out = new ArrayList<>();
    for (ObjectInfo o :
        store.list(LogFiles.LOG_DIR, fromVersion <= 0 ? null : LogFiles.commit(fromVersion - 1))) {
      if (LogFiles.commitVersion(o.key()) >= Math.max(0, fromVersion)) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * Brings {@code current} up to the latest version, like {@link #update}, but first checks that
   * the log still holds {@code current}'s version (in the same listing): if it does not, the table
   * was deleted, or its folder now holds another log (a table re-created or put back from an older
   * copy), and the log that is there now is replayed from scratch instead. So a long-lived handle
   * never keeps answering from a table that is gone.
   *
   * @return the latest state; empty if there is no table any more
   */
  public Optional<TableState> refresh(TableState current) throws IOException {
    long v = current.version();
    List<ObjectInfo> listing = store.list(LogFiles.LOG_DIR, v == 0 ? null : LogFiles.commit(v - 1));
    boolean holdsCurrent =
        listing.stream().anyMatch(o -> LogFiles.commitVersion(o.key()) == v)
            || store.stat(LogFiles.commit(v)).isPresent();
    if (!holdsCurrent) {
      return load();
    }
    List<Long> commits = commitVersionsAfter(listing, v);
    if (commits.isEmpty()) {
      return Optional.of(current);
    }
    StateBuilder builder = new StateBuilder(current);
    replay(builder, commits);
    TableState state = builder.build();
    ProtocolSupport.checkReadable(location(), state.version(), state.protocol(), state.metadata());
    return Optional.of(state);
  }

  /**
   * Brings {@code current} up to the latest version by applying the commits after it.
   *
   * @return {@code current} itself if nothing was committed since
   */
  public TableState update(TableState current) throws IOException {
    List<ObjectInfo> listing = store.list(LogFiles.LOG_DIR, LogFiles.commit(current.version()));
    List<Long> commits = commitVersionsAfter(listing, current.version());
    if (commits.isEmpty()) {
      return current;
    }
    StateBuilder builder = new StateBuilder(current);
    replay(builder, commits);
    TableState state = builder.build();
    ProtocolSupport.checkReadable(location(), state.version(), state.protocol(), state.metadata());
    return state;
  }

  /** {@code state} with one more commit applied (the state at {@code version}). */
  public static TableState applyCommit(TableState state, long version, List<Action> actions) {
    StateBuilder builder = new StateBuilder(state);
    builder.apply(version, actions);
    return builder.build();
  }

  private void replay(StateBuilder builder, List<Long> commits) throws IOException {
    long expected = builder.version() + 1;
    long last = commits.isEmpty() ? -1 : commits.get(commits.size() - 1);
    for (long v : commits) {
      // A listing is not a snapshot of the directory: a commit another writer created while it ran
      // can be absent although a later one is listed (a local directory's readdir, an S3 listing).
      // Every version below a listed one was committed first, so a gap is read directly before it
      // is called missing (seen with several instances committing to one table).
      while (expected < v) {
        builder.apply(expected, readListedGap(expected, last));
        expected++;
      }
      builder.apply(v, readCommit(v));
      expected = v + 1;
    }
  }

  /**
   * A commit a listing did not show although later ones exist: it is there, or the log has a hole.
   */
  private List<Action> readListedGap(long version, long last) throws IOException {
    try {
      return readCommit(version);
    } catch (ObjectNotFoundException e) {
      throw TableErrors.missingVersion(location(), version, last);
    }
  }

  /**
   * The actions of one commit.
   *
   * @throws ObjectNotFoundException if the version was not committed
   */
  public List<Action> readCommit(long version) throws IOException {
    String key = LogFiles.commit(version);
    return ActionCodec.decodeCommit(location(), key, store.read(key));
  }

  /** Versions of the commit files after {@code afterVersion}, ascending (no gap check). */
  public List<Long> commitsAfter(long afterVersion) throws IOException {
    return commitVersionsAfter(
        store.list(LogFiles.LOG_DIR, afterVersion < 0 ? null : LogFiles.commit(afterVersion)),
        afterVersion);
  }

  /**
   * Writes commit {@code version} if nobody has: the put-if-absent commit.
   *
   * @return true if this call created the commit, false if the version already exists
   * @throws IOException the outcome is unknown: the commit may exist; resolve by reading
   */
  public boolean tryCommit(long version, List<Action> actions) throws IOException {
    return store.putIfAbsent(LogFiles.commit(version), ActionCodec.encodeCommit(actions));
  }

  /**
   * Writes a classic checkpoint of {@code state}, then points {@code _last_checkpoint} at it
   * (unless it already points at a newer one). Tombstones older than the table's {@code
   * delta.deletedFileRetentionDuration} (default 7 days) before {@code nowMillis} are dropped:
   * vacuum treats their files as orphans afterwards.
   */
  public void writeCheckpoint(TableState state, long nowMillis) throws IOException {
    Duration retention =
        TableProperties.duration(
            state.metadata().configuration(),
            "delta.deletedFileRetentionDuration",
            DEFAULT_TOMBSTONE_RETENTION);
    long cutoff = nowMillis - retention.toMillis();
    List<RemoveFile> tombstones = new ArrayList<>();
    for (RemoveFile r : state.tombstones().values()) {
      if (r.deletionTimestamp() == null || r.deletionTimestamp() >= cutoff) {
        tombstones.add(r);
      }
    }
    CheckpointFile.Encoded encoded = CheckpointFile.encode(state, tombstones);
    store.put(LogFiles.checkpoint(state.version()), encoded.bytes());
    if (readLastCheckpointVersion() < state.version()) {
      String pointer = "{\"version\":" + state.version() + ",\"size\":" + encoded.actions() + "}";
      store.put(LogFiles.LAST_CHECKPOINT, pointer.getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * The actions of the checkpoint of {@code version} in the listing: the classic one if there is
   * one, else the first UUID-named V2 checkpoint, with the add and remove actions of its sidecars.
   */
  private List<Action> readCheckpoint(long version, List<ObjectInfo> listing) throws IOException {
    String key = null;
    for (ObjectInfo o : listing) {
      if (LogFiles.checkpointVersion(o.key()) == version
          && (key == null || o.key().equals(LogFiles.checkpoint(version)))) {
        key = o.key();
      }
    }
    if (key == null) {
      key = LogFiles.checkpoint(version);
    }
    try {
      byte[] bytes = store.read(key);
      List<Action> actions = new ArrayList<>();
      List<String> sidecars;
      if (key.endsWith(".json")) {
        actions.addAll(ActionCodec.decodeCommit(location(), key, bytes));
        sidecars = ActionCodec.sidecars(bytes);
      } else {
        CheckpointFile.Decoded decoded = CheckpointFile.decode(bytes, location(), key);
        actions.addAll(decoded.actions());
        sidecars = decoded.sidecars();
      }
      for (String sidecar : sidecars) {
        String sidecarKey = LogFiles.sidecar(sidecar);
        actions.addAll(
            CheckpointFile.decode(store.read(sidecarKey), location(), sidecarKey).actions());
      }
      return actions;
    } catch (IOException | RuntimeException e) {
      throw TableErrors.unreadableCheckpoint(location(), key, e);
    }
  }

  /** Version in {@code _last_checkpoint}, or -1 if absent or unreadable (it is only a hint). */
  long readLastCheckpointVersion() throws IOException {
    byte[] bytes;
    try {
      bytes = store.read(LogFiles.LAST_CHECKPOINT);
    } catch (ObjectNotFoundException e) {
      return -1;
    }
    try {
      JsonNode node = ActionCodec.MAPPER.readTree(bytes);
      return node.path("version").asLong(-1);
    } catch (IOException e) {
      LOG.warn(
          "Ignoring unreadable {} of {}: {}", LogFiles.LAST_CHECKPOINT, location(), e.getMessage());
      return -1;
    }
  }

  private static long newestCheckpoint(List<ObjectInfo> listing) {
    long newest = -1;
    for (ObjectInfo o : listing) {
      newest = Math.max(newest, LogFiles.checkpointVersion(o.key()));
    }
    return newest;
  }

  private static List<Long> commitVersionsAfter(List<ObjectInfo> listing, long after) {
    List<Long> versions = new ArrayList<>();
    for (ObjectInfo o : listing) {
      long v = LogFiles.commitVersion(o.key());
      if (v > after) {
        versions.add(v);
      }
    }
    return versions;
  }
}
