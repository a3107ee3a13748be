package dev.tributary.table.stream;

import dev.tributary.table.TableException;
import java.time.Instant;

/** The messages of the streaming read of a Delta table, built in one place. */
final class SourceErrors {
  private SourceErrors() {}

  static IllegalArgumentException badPosition(String text, String why) {
    return new IllegalArgumentException(
        "Not a Delta source position: '"
            + text
            + "': "
            + why
            + ". The offsets log holds positions as the source wrote them; do not edit them by hand.");
  }

  static TableException otherTable(String location, String expected, String found) {
    return new TableException(
        "The stored position of the Delta source "
            + location
            + " belongs to table id "
            + found
            + ", but the table there now has id "
            + expected
            + " (it was deleted and created again). Start the pipeline with a new checkpoint.");
  }

  static TableException versionTooNew(String location, long version, long latest) {
    return new TableException(
        "starting-version "
            + version
            + " of the Delta source "
            + location
            + " does not exist yet: the latest version is "
            + latest
            + ". Use a version up to "
            + latest
            + ", or latest.");
  }

  static TableException versionGone(String location, long version, long earliest) {
    return new TableException(
        "Commit "
            + version
            + " of the Delta source "
            + location
            + " is no longer in the log (log cleanup removed it; the earliest commit left is "
            + (earliest < 0 ? "none" : String.valueOf(earliest))
            + "). The changes it held cannot be"
            + " read. Start from a later version, or with a new checkpoint from earliest (the"
            + " current snapshot).");
  }

  static TableException timestampAfterLatest(
      String location, Instant timestamp, long latest, Instant latestTimestamp) {
    return new TableException(
        "starting-version timestamp:"
            + timestamp
            + " of the Delta source "
            + location
            + " is after the latest commit (version "
            + latest
            + " at "
            + latestTimestamp
            + "). Use an earlier timestamp, or latest.");
  }

  static TableException inCommitTimestamps(String location) {
    return new TableException(
        "The Delta source "
            + location
            + " has in-commit timestamps"
            + " (delta.enableInCommitTimestamps), which timestamp: starting points do not read yet."
            + " Use a version number as starting-version instead.");
  }

  static TableException dataRemoved(
      String location, long version, String operation, String path, boolean alsoAdds) {
    String what =
        alsoAdds
            ? "rewrote data (it removes and adds files with dataChange=true, e.g. a MERGE, UPDATE or overwrite)"
            : "deleted data (it removes files with dataChange=true, e.g. a DELETE)";
    String fix =
        alsoAdds
            ? "Set skip-change-commits: true to skip such commits entirely (rows they add are not read"
                + " either)"
            : "Set ignore-deletes: true to skip commits that only delete, or skip-change-commits: true"
                + " to skip every commit that removes data";
    return new TableException(
        "Commit "
            + version
            + " ("
            + operation
            + ") of the Delta source "
            + location
            + " "
            + what
            + "; for example it removes '"
            + path
            + "'. A stream only reads"
            + " appended rows and cannot take rows back. "
            + fix
            + ", or start again with a new"
            + " checkpoint.");
  }

  static TableException fileGone(String location, SourceFile file, Throwable cause) {
    String where =
        file.initialSnapshot()
            ? "in the snapshot of version " + file.version()
            : "added by commit " + file.version();
    return new TableException(
        "Data file '"
            + file.add().path()
            + "' of the Delta source "
            + location
            + " ("
            + where
            + ") is gone before this pipeline read it: a VACUUM with a retention shorter"
            + " than how far behind the pipeline is deleted it. Its rows cannot be read, so the batch"
            + " fails rather than skip them. Restore the file, or start with a new checkpoint (from"
            + " earliest: the current snapshot, or a later starting-version); keep the VACUUM retention"
            + " longer than the lag of every pipeline that reads the table.",
        cause);
  }

  static TableException schemaChanged(String location, long version, String change) {
    return new TableException(
        "The schema of the Delta source "
            + location
            + " changed at version "
            + version
            + ": "
            + change
            + ". The stream reads the schema the table had when it started;"
            + " restart the pipeline to read with the new schema (added columns are accepted then),"
            + " or start it with a new checkpoint.");
  }

  static TableException partitioningChanged(String location, long version, Object from, Object to) {
    return new TableException(
        "The partition columns of the Delta source "
            + location
            + " changed at version "
            + version
            + " from "
            + from
            + " to "
            + to
            + ". Start the"
            + " pipeline with a new checkpoint.");
  }

  static TableException notReplayable(
      String location, SourcePosition from, SourcePosition to, SourcePosition reached) {
    return new TableException(
        "The range ["
            + from
            + ", "
            + to
            + ") of the Delta source "
            + location
            + " cannot be read again: reading it ended at "
            + reached
            + ". The table's history was"
            + " rewritten (its log files replaced); start the pipeline with a new checkpoint.");
  }
}
