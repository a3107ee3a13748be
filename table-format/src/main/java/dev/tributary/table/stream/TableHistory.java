package dev.tributary.table.stream;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.TableState;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a stream reads of a table's log: one commit's actions (recent ones cached), the live files
 * of one version in Delta's initial-snapshot order, and commit versions by number or timestamp. Not
 * thread-safe.
 */
final class TableHistory {
  private static final int CACHED_COMMITS = 256;
  private static final Comparator<AddFile> SNAPSHOT_ORDER =
      Comparator.comparingLong(AddFile::modificationTime).thenComparing(AddFile::path);

  private final DeltaLog log;
  private final Map<Long, List<Action>> commits =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, List<Action>> eldest) {
          return size() > CACHED_COMMITS;
        }
      };
  private long snapshotVersion = -1;
  private List<AddFile> snapshotFiles = List.of();

  TableHistory(DeltaLog log) {
    this.log = log;
  }

  /**
   * The actions of commit {@code version}.
   *
   * @throws dev.tributary.table.TableException if the commit is no longer in the log
   */
  List<Action> actions(long version) throws IOException {
    List<Action> cached = commits.get(version);
    if (cached == null) {
      try {
        cached = List.copyOf(log.readCommit(version));
      } catch (ObjectNotFoundException e) {
        throw SourceErrors.versionGone(log.location(), version, earliestCommit());
      }
      commits.put(version, cached);
    }
    return cached;
  }

  /**
   * The live files at {@code version}, sorted by modification time, then path (Delta's {@code
   * DeltaSourceSnapshot} order), each {@link #forReading as read}. The state comes from {@code
   * known} if it is that version, else it is rebuilt from the log ({@link DeltaLog#loadAt}).
   *
   * @param check judges the snapshot's metadata before its files are used
   */
  List<AddFile> snapshotFiles(long version, TableState known, Consumer<TableState> check)
      throws IOException {
    if (version != snapshotVersion) {
      TableState state = version == known.version() ? known : log.loadAt(version);
      check.accept(state);
      List<AddFile> files = new ArrayList<>();
      for (AddFile add : state.files().values()) {
        files.add(forReading(add));
      }
      files.sort(SNAPSHOT_ORDER);
      snapshotFiles = List.copyOf(files);
      snapshotVersion = version;
    }
    return snapshotFiles;
  }

  /**
   * The add as a stream reads it: without statistics (Delta's source drops them too, they are not
   * needed to read rows) and as data (a checkpoint stores snapshot files with {@code dataChange:
   * false}), so a file is the same value whether the snapshot was rebuilt from commits or from a
   * checkpoint. The deletion vector stays: it is part of the logical file.
   */
  static AddFile forReading(AddFile add) {
    return new AddFile(
        add.path(),
        add.partitionValues(),
        add.size(),
        add.modificationTime(),
        true,
        null,
        add.tags(),
        add.deletionVector(),
        add.baseRowId(),
        add.defaultRowCommitVersion());
  }

  /** Checks that commit {@code version} (at most {@code latest}) is still in the log. */
  void checkCommitExists(long version, long latest) throws IOException {
    if (version > latest) {
      throw SourceErrors.versionTooNew(log.location(), version, latest);
    }
    List<ObjectInfo> files = log.commitFiles(version);
    if (files.isEmpty() || LogFiles.commitVersion(files.get(0).key()) != version) {
      throw SourceErrors.versionGone(log.location(), version, earliestCommit());
    }
  }

  /**
   * The first commit (up to {@code latest}) at or after {@code timestamp}, as Delta's {@code
   * DeltaSource.getStartingVersionFromTimestamp} finds it: commit timestamps are the commit files'
   * modification times, made strictly increasing with the version as {@code
   * DeltaHistoryManager.monotonizeCommitTimestamps} does (a commit not later than the one before
   * counts as 1 ms after it). A timestamp before the first commit left gives that commit.
   *
   * @throws dev.tributary.table.TableException if the timestamp is after the latest commit
   */
  long firstCommitAtOrAfter(Instant timestamp, long latest) throws IOException {
    long wanted = timestamp.toEpochMilli();
    long previous = Long.MIN_VALUE;
    long lastVersion = -1;
    for (ObjectInfo f : log.commitFiles(0)) {
      long version = LogFiles.commitVersion(f.key());
      if (version > latest) {
        break;
      }
      long modified = f.lastModified().toEpochMilli();
      long ts = previous == Long.MIN_VALUE ? modified : Math.max(modified, previous + 1);
      if (ts >= wanted) {
        return version;
      }
      previous = ts;
      lastVersion = version;
    }
    throw SourceErrors.timestampAfterLatest(
        log.location(), timestamp, lastVersion, Instant.ofEpochMilli(previous));
  }

  private long earliestCommit() throws IOException {
    List<ObjectInfo> files = log.commitFiles(0);
    return files.isEmpty() ? -1 : LogFiles.commitVersion(files.get(0).key());
  }
}
