package dev.tributary.table;

import java.util.Collection;
import java.util.List;

/**
 * Every user-facing error message of the Delta log and the table facade, built in one place so they
 * consistently name the table, the version or file, and the fix.
 */
public final class TableErrors {
  /** How many of the files found in a non-empty folder {@link #folderNotEmpty} names. */
  public static final int FILES_SHOWN = 5;

  private TableErrors() {}

  /** A commit file line is not valid JSON (or not a JSON object). */
  public static TableException corruptLogLine(
      String location, String file, int line, String detail) {
    return new TableException(
        "Cannot read Delta table at "
            + location
            + ": "
            + file
            + " line "
            + line
            + " is not a valid action ("
            + detail
            + "). The log was written partially or edited by"
            + " hand; restore the file from a backup. Rebuilding the table instead means writing"
            + " all of it again: a streaming pipeline that writes it must then start over too"
            + " (delete its checkpoint as well, so every record still in the source is read"
            + " again), or it refuses the rebuilt table rather than go on after rows it lost.");
  }

  /** A field of an action is missing or has the wrong type. */
  public static TableException badAction(String location, String file, String detail) {
    return new TableException(
        "Cannot read Delta table at "
            + location
            + ": "
            + file
            + " holds an invalid action: "
            + detail
            + ". The table was written by a writer that does not follow the Delta"
            + " protocol; rewrite it with a conforming writer.");
  }

  /** A commit version between the first and the last is missing. */
  public static TableException missingVersion(String location, long missing, long last) {
    return new TableException(
        "Cannot read Delta table at "
            + location
            + ": commit "
            + commitFileName(missing)
            + " is missing but later commits exist (up to version "
            + last
            + "). Someone deleted"
            + " log files; restore them from a backup (a checkpoint after the gap also repairs it).");
  }

  /** The log has commits but no version 0 and no checkpoint to start from. */
  public static TableException noStartingPoint(String location, long first) {
    return new TableException(
        "Cannot read Delta table at "
            + location
            + ": the log starts at version "
            + first
            + " and there is no checkpoint to start from. Restore the earlier log files or a"
            + " checkpoint.");
  }

  /** A version asked for is after the table's latest version. */
  public static TableException versionNotCommitted(String location, long version, long latest) {
    return new TableException(
        "Cannot read version "
            + version
            + " of Delta table at "
            + location
            + ": the latest version is "
            + latest
            + ".");
  }

  /** A version of the table cannot be rebuilt (time travel), e.g. after log cleanup. */
  public static TableException versionNotReconstructable(
      String location, long version, String why) {
    return new TableException(
        "Cannot read version "
            + version
            + " of Delta table at "
            + location
            + ": "
            + why
            + "."
            + " Old commits are removed by log cleanup (delta.logRetentionDuration); start from a"
            + " version the log still holds, or raise the retention.");
  }

  /** The table has no commit at all (no {@code _delta_log}). */
  public static TableException notATable(String location) {
    return new TableException(
        "No Delta table at "
            + location
            + ": there is no _delta_log/00000000000000000000.json."
            + " Create the table first (DeltaTable.create) or check the path.");
  }

  /**
   * A table was to be created in a folder that holds files but no Delta log.
   *
   * @param found some keys found in the folder; the first {@value #FILES_SHOWN} are named
   */
  public static TableException folderNotEmpty(String location, List<String> found) {
    boolean more = found.size() > FILES_SHOWN;
    found = found.subList(0, Math.min(found.size(), FILES_SHOWN));
    return new TableException(
        "Cannot create a Delta table at "
            + location
            + ": the folder is not empty but holds no Delta"
            + " table (no _delta_log/00000000000000000000.json); it contains "
            + String.join(", ", found)
            + (more ? " and more" : "")
            + ". A table owns every file in its folder (vacuum deletes those"
            + " the table does not reference), so a table is never created over files someone else"
            + " wrote. Choose a new or empty location for the table, or move those files away.");
  }

  /** Protocol needs a reader we are not. */
  public static TableException unsupportedReader(
      String location, long version, int readerVersion, Collection<String> unsupportedFeatures) {
    return new TableException(
        "Cannot read Delta table at "
            + location
            + " (version "
            + version
            + "): it requires"
            + " reader version "
            + readerVersion
            + (unsupportedFeatures.isEmpty() ? "" : " with features " + unsupportedFeatures)
            + ", which Tributary does not implement (it reads reader versions 1-3 with the features"
            + " listed in docs/PROTOCOL_SUPPORT.md). Read it with another Delta client, or have"
            + " the table's writer drop the feature (Delta: ALTER TABLE ... DROP FEATURE).");
  }

  /** Protocol needs a writer we are not. */
  public static TableException unsupportedWriter(
      String location, long version, int writerVersion, Collection<String> unsupportedFeatures) {
    return new TableException(
        "Cannot write to Delta table at "
            + location
            + " (version "
            + version
            + "): it requires"
            + " writer version "
            + writerVersion
            + (unsupportedFeatures.isEmpty() ? "" : " with features " + unsupportedFeatures)
            + ", which Tributary does not honour when it commits (the writer features it honours are"
            + " listed in docs/PROTOCOL_SUPPORT.md). Write to a table created by Tributary, or have"
            + " the table's writer drop the feature (Delta: ALTER TABLE ... DROP FEATURE).");
  }

  /**
   * A table whose schema records a type change ({@code delta.typeChanges}) that readers cannot
   * apply to the files written before it.
   */
  public static TableException unreadableTypeChanges(
      String location, long version, Collection<String> changes) {
    return new TableException(
        "Cannot read Delta table at "
            + location
            + " (version "
            + version
            + "): type changes Tributary cannot read (delta.typeChanges): "
            + String.join(", ", changes)
            + ". Tributary reads the widenings Delta 4.0 makes (byte to short to integer to long;"
            + " byte, short or integer to double; float to double; date to timestamp_ntz; a whole"
            + " number or decimal to a decimal with at least its digits); have Spark rewrite the"
            + " older files in the current types (ALTER TABLE ... DROP FEATURE 'typeWidening')"
            + " or read the table with an engine that supports the change.");
  }

  /** A writer opened a table with variant columns, which Tributary only reads. */
  public static TableException variantReadOnly(
      String location, long version, Collection<String> columns) {
    return new TableException(
        "Cannot write to Delta table at "
            + location
            + " (version "
            + version
            + "): variant columns: read only ("
            + String.join(", ", columns)
            + "). Tributary reads a variant as its JSON text but does not encode one; write to a"
            + " table whose columns are strings, or have Spark write this one.");
  }

  /** A feature of a table we read is not supported (e.g. a column type, a format). */
  public static TableException unsupported(String location, String what, String fix) {
    return new TableException(
        "Cannot use Delta table at " + location + ": " + what + " is not supported. " + fix);
  }

  /** The checkpoint file could not be read. */
  public static TableException unreadableCheckpoint(String location, String file, Throwable cause) {
    return new TableException(
        "Cannot read Delta table at "
            + location
            + ": checkpoint "
            + file
            + " is unreadable ("
            + cause.getMessage()
            + "). Delete "
            + file
            + " and _delta_log/_last_checkpoint if the"
            + " JSON commits before it still exist, otherwise restore it from a backup.",
        cause);
  }

  /** File name of a commit. */
  public static String commitFileName(long version) {
    return String.format("_delta_log/%020d.json", version);
  }

  /**
   * The row rules a commit's rows were checked against ({@link AppendTransaction#enforce}) are no
   * longer the table's: not retryable, the caller compiles the new rules first.
   */
  public static TableException rulesChanged(String location, long version) {
    return new TableException(
        "The constraints, generated or identity columns of the Delta table at "
            + location
            + " changed (version "
            + version
            + ") after the rows of this commit were checked against them. Nothing was"
            + " committed; restart the pipeline to check rows against the table's new rules.");
  }

  /**
   * Another writer assigned identity values after the mark this commit's values follow ({@link
   * AppendTransaction#moveIdentity}): a conflict, the batch is written again with fresh values.
   *
   * @param now the table's mark now, or null if the column is no longer an identity column
   */
  public static CommitConflictException identityMarkMoved(
      String location, AppendTransaction.IdentityMark mark, Long now) {
    return new CommitConflictException(
        "Commit to the Delta table at "
            + location
            + " conflicts: another writer assigned values of identity column "
            + mark.column()
            + " (high-water mark "
            + (now == null ? "gone" : now)
            + ", this commit's values follow "
            + mark.previous()
            + "). Nothing was committed; the batch is written again with fresh values.");
  }

  /** A range replacement refused on a table that cannot take it. */
  public static TableException replaceRefused(String location, String why) {
    return new TableException(
        "Cannot replace a range of the Delta table at "
            + location
            + ": "
            + why
            + ". Write the recomputed rows to a new table instead.");
  }

  /** A table's files added to another table whose data files are laid out differently. */
  static String layoutsDiffer(String location, String inner, String own, String theirs) {
    return "Cannot add the files of the Delta table at "
        + inner
        + " to the one at "
        + location
        + ": its data files hold "
        + theirs
        + " but the table's hold "
        + own
        + "; create the inner table with the outer table's metadata (schema with its field"
        + " metadata, partition columns, properties).";
  }
}
