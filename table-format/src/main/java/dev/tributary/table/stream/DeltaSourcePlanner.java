package dev.tributary.table.stream;

import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableException;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.VariantType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Delta table incrementally, as Delta's streaming source ({@code DeltaSource}) does: it
 * turns a {@link StartingPoint} into a first {@link SourcePosition}, plans the next {@link
 * SourceRange} from a position within {@link SourceLimits}, plans a recorded range again exactly
 * ({@link #replay}), reports the {@link SourceLag}, and reads a planned file's rows.
 *
 * <p>What is read: from {@link StartingPoint.Earliest earliest}, the files of the snapshot at the
 * version current when the planner was opened, sorted by modification time then path, then the
 * data-changing files of every later commit in commit order; from a version or a timestamp, only
 * the commits' files. Which files of a commit are read, and which commits stop the stream, is
 * {@link CommitRules}'. Ranges end where the limits say, before a file that would exceed them, so a
 * large commit spans several ranges; a range never reads a version above the latest. A range also
 * ends before a commit that stops the stream, so everything before that commit is read once and the
 * next range, starting at the commit, fails there. (Delta fails the planning of the whole batch as
 * soon as its scan reaches such a commit, so the files before it in the same batch wait until the
 * stream is restarted with an option; ending the range early delivers them and fails at the same
 * commit.)
 *
 * <p>The read schema is the table's schema when the planner is opened (Delta reads with the schema
 * of the snapshot at source initialization); a later schema change stops the stream, and the next
 * planner (after a restart) reads with the new schema.
 *
 * <p>Replay: the same range always yields the same files, because a position names a file by its
 * version and index and a commit never changes. The snapshot of a range inside the initial snapshot
 * is rebuilt from the log ({@link DeltaLog#loadAt}), which needs the log to still hold that version
 * (checkpoint or commits).
 *
 * <p>Not thread-safe: one planner serves one stream. It caches recently read commits.
 */
public final class DeltaSourcePlanner {
  /** Table property of Delta's in-commit timestamps. */
  private static final String IN_COMMIT_TIMESTAMPS = "delta.enableInCommitTimestamps";

  private final DeltaTable table;
  private final Snapshot opened;
  private final CommitRules rules;
  private final TableHistory history;
  private Snapshot latest;

  private DeltaSourcePlanner(DeltaTable table, Snapshot opened, ChangeOptions options) {
    this.table = table;
    this.history = new TableHistory(new DeltaLog(table.store()));
    this.opened = opened;
    this.latest = opened;
    this.rules =
        new CommitRules(
            table.location(),
            options,
            opened.schema(),
            opened.partitionColumns(),
            opened.version());
  }

  /**
   * Opens a planner on the table's latest snapshot, whose schema becomes the read schema.
   *
   * @throws dev.tributary.table.TableException if there is no table, or it needs a reader we are
   *     not (deletion vectors, column mapping, ...)
   */
  public static DeltaSourcePlanner open(DeltaTable table, ChangeOptions options)
      throws IOException {
    return new DeltaSourcePlanner(table, table.snapshot(), options);
  }

  /**
   * The schema rows are read with, partition columns included: the table's, with a {@code string}
   * for each variant column (its JSON text, see {@link VariantType}).
   */
  public StructType readSchema() {
    return VariantType.asJsonText(opened.schema());
  }

  /** The table's partition columns. */
  public List<String> partitionColumns() {
    return opened.partitionColumns();
  }

  /** The table's id, which every position of it carries. */
  public String tableId() {
    return opened.tableId();
  }

  /** The table version the planner was opened at (the version of the read schema). */
  public long openedVersion() {
    return opened.version();
  }

  /**
   * The first position of a new stream.
   *
   * @throws dev.tributary.table.TableException if the version does not exist or is no longer in the
   *     log, or the timestamp is after the latest commit (Delta's {@code
   *     timestampGreaterThanLatestCommit})
   */
  public SourcePosition start(StartingPoint start) throws IOException {
    long current = opened.version();
    if (start instanceof StartingPoint.AtVersion v) {
      history.checkCommitExists(v.version(), current);
      return SourcePosition.commitStart(tableId(), v.version());
    }
    if (start instanceof StartingPoint.AtTimestamp t) {
      if (Boolean.parseBoolean(opened.properties().getOrDefault(IN_COMMIT_TIMESTAMPS, "false"))) {
        throw SourceErrors.inCommitTimestamps(table.location());
      }
      return SourcePosition.commitStart(
          tableId(), history.firstCommitAtOrAfter(t.timestamp(), current));
    }
    return start instanceof StartingPoint.Latest
        ? SourcePosition.commitStart(tableId(), current + 1)
        : SourcePosition.snapshotStart(tableId(), current);
  }

  /** The next range from {@code from}, up to the latest version, within {@code limits}. */
  public SourceRange plan(SourcePosition from, SourceLimits limits) throws IOException {
    return plan(from, limits, Long.MAX_VALUE);
  }

  /**
   * The next range from {@code from} within {@code limits}, reading no version above {@code
   * lastVersion} (available-now: the version current when the run started, as Delta's {@code
   * lastOffsetForTriggerAvailableNow} bounds its batches).
   *
   * @throws dev.tributary.table.TableException if a commit in reach stops the stream (see {@link
   *     CommitRules}), or the log no longer holds a version to read
   */
  public SourceRange plan(SourcePosition from, SourceLimits limits, long lastVersion)
      throws IOException {
    long last = Math.min(lastVersion, refresh().version());
    return scan(from, limits.admission(), null, last);
  }

  /**
   * The recorded range {@code [from, to)} again, with the same files.
   *
   * @throws dev.tributary.table.TableException if the table's history no longer yields that range
   *     (its log was rewritten or cleaned up)
   */
  public SourceRange replay(SourcePosition from, SourcePosition to) throws IOException {
    long last = to.initialSnapshot() || to.index() > 0 ? to.version() : to.version() - 1;
    SourceRange range = scan(from, SourceLimits.unlimited().admission(), to, last);
    if (!range.to().equals(to)) {
      throw SourceErrors.notReplayable(table.location(), from, to, range.to());
    }
    return range;
  }

  /**
   * How far {@code position} is behind the latest version: the versions not completely read and the
   * data-changing files (and bytes) added in them after the position. Commits are counted as they
   * are, before the commit rules (a commit the stream will skip still counts).
   */
  public SourceLag lag(SourcePosition position) throws IOException {
    checkTable(position);
    long latestVersion = refresh().version();
    long files = 0;
    long bytes = 0;
    long version = position.version();
    long skip = position.index();
    if (position.initialSnapshot()) {
      List<AddFile> snapshot = snapshotFiles(version);
      for (int i = (int) Math.min(skip, snapshot.size()); i < snapshot.size(); i++) {
        files++;
        bytes += snapshot.get(i).size();
      }
      version++;
      skip = 0;
    }
    for (long v = version; v <= latestVersion; v++) {
      long index = 0;
      for (Action a : history.actions(v)) {
        if (a instanceof AddFile add && add.dataChange() && index++ >= skip) {
          files++;
          bytes += add.size();
        }
      }
      skip = 0;
    }
    return new SourceLag(
        latestVersion, Math.max(0, latestVersion - position.version() + 1), files, bytes);
  }

  /**
   * The rows of a planned file in the {@link #readSchema() read schema}: partition columns come
   * from the file's {@code partitionValues}, columns the file lacks are null. The caller closes the
   * iterator.
   *
   * @throws TableException if the file is gone (a VACUUM deleted it before the stream read it): the
   *     message names the file and its commit; the stream never skips a planned file
   */
  public CloseableIterator<SourceRow> read(SourceFile file) throws IOException {
    try {
      return new SourceRowIterator(
          file,
          DataFiles.read(
              table.store(), file.toDataFile(), opened.schema(), opened.columnMapping()));
    } catch (ObjectNotFoundException e) {
      // A planned file that is gone is a vacuum that outran the stream: fail, never skip its rows.
      throw SourceErrors.fileGone(table.location(), file, e);
    }
  }

  /**
   * Walks the history from {@code from}: the snapshot's files if inside it, then each commit up to
   * {@code lastVersion}, while {@code admission} has room and before {@code until} (if given).
   */
  private SourceRange scan(
      SourcePosition from, SourceLimits.Admission admission, SourcePosition until, long lastVersion)
      throws IOException {
    checkTable(from);
    List<SourceFile> out = new ArrayList<>();
    long version = from.version();
    long index = from.index();
    if (from.initialSnapshot()) {
      List<AddFile> snapshot = snapshotFiles(version);
      if (index > snapshot.size()) {
        throw SourceErrors.notReplayable(
            table.location(), from, until == null ? from : until, from);
      }
      for (; index < snapshot.size(); index++) {
        SourcePosition at = from.withIndex(index);
        if ((until != null && at.compareTo(until) >= 0)
            || !admission.admit(snapshot.get((int) index).size())) {
          return new SourceRange(from, at, out);
        }
        out.add(new SourceFile(version, index, true, snapshot.get((int) index)));
      }
      version++;
      index = 0;
    }
    while (version <= lastVersion) {
      SourcePosition at = new SourcePosition(tableId(), version, index, false);
      if ((until != null && at.compareTo(until) >= 0) || !admission.hasCapacity()) {
        return new SourceRange(from, at, out);
      }
      List<AddFile> adds;
      try {
        adds =
            rules.filesToRead(
                version,
                history.actions(version),
                latest.state().protocol(),
                latest.state().metadata());
      } catch (TableException stop) {
        if (at.compareTo(from) > 0) {
          // End the range before the commit: what came before it is read once, the next range
          // starts at the commit and fails there (Delta fails the whole planning instead).
          return new SourceRange(from, at, out);
        }
        throw stop;
      }
      if (index > adds.size()) {
        throw SourceErrors.notReplayable(table.location(), from, until == null ? at : until, at);
      }
      for (; index < adds.size(); index++) {
        at = new SourcePosition(tableId(), version, index, false);
        if ((until != null && at.compareTo(until) >= 0)
            || !admission.admit(adds.get((int) index).size())) {
          return new SourceRange(from, at, out);
        }
        out.add(
            new SourceFile(version, index, false, TableHistory.forReading(adds.get((int) index))));
      }
      version++;
      index = 0;
    }
    return new SourceRange(from, new SourcePosition(tableId(), version, index, false), out);
  }

  private Snapshot refresh() throws IOException {
    latest = table.snapshot();
    return latest;
  }

  private void checkTable(SourcePosition position) {
    if (!position.tableId().equals(tableId())) {
      throw SourceErrors.otherTable(table.location(), tableId(), position.tableId());
    }
  }

  private List<AddFile> snapshotFiles(long version) throws IOException {
    return history.snapshotFiles(
        version, opened.state(), state -> rules.checkMetadata(version, state.metadata()));
  }
}
