package dev.tributary.service.engine;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Refuses to write a batch over a table that lost what the checkpoint committed to it
 * (docs/DESIGN.md, "A table that lost committed batches"). A checkpoint that keeps its progress
 * outside the tables (the {@link WriteAheadLog}) would otherwise go on after its last batch into a
 * table that was deleted (and re-created empty by the next start), emptied by an overwrite,
 * restored to an older version, or replaced by another table: the rows of its earlier batches gone,
 * and nothing said so.
 *
 * <p>For each table the guard remembers a {@link Mark} — the table's identity and the latest
 * version it checked or this checkpoint committed — recorded in every commits entry, and checks, at
 * start and before each batch, that the table
 *
 * <ul>
 *   <li>exists, with the same identity (a re-created or replaced table has a new Delta metaData
 *       id);
 *   <li>is not older than the mark (a table put back from an older copy);
 *   <li>holds the checkpoint's last committed batch (its {@code txn});
 *   <li>had no commit since the mark that took its data out wholesale (a {@code RESTORE}, a full
 *       overwrite, a {@code REPLACE}, a {@code TRUNCATE}); edits of some rows (DELETE, UPDATE,
 *       MERGE, a {@code replaceWhere}) and compaction are a user's deliberate changes and pass.
 * </ul>
 *
 * A table that fails is a {@link TableLostException}: the pipeline stops with what is missing and
 * the safe ways on. The check costs one listing of each table's log per batch (plus a read of each
 * commit other writers made meanwhile).
 */
final class TableGuard {
  /** Commits-entry key prefix of a table's mark: {@code table.<role>} = {@code <id>@<version>}. */
  static final String MARK_PREFIX = "table.";

  private final String pipelineId;
  private final String checkpointLocation;
  private final String batchAppId;
  private final Map<String, TableSink> tables;
  private final Map<String, Mark> marks = new LinkedHashMap<>();

  /**
   * Whether the commits entry the guard started from recorded no marks at all (written before marks
   * existed): then every table is held to the last committed batch. Otherwise a table without a
   * mark is one the declaration added since, which holds no earlier batch, rightly.
   */
  private boolean unmarked = true;

  /**
   * What the guard knows of one table.
   *
   * @param tableId the table's identity
   * @param version the latest version checked, or committed by this checkpoint
   */
  record Mark(String tableId, long version) {
    Mark {
      Objects.requireNonNull(tableId, "tableId");
    }

    String encode() {
      return tableId + "@" + version;
    }

    static Optional<Mark> decode(String text) {
      int at = text == null ? -1 : text.lastIndexOf('@');
      if (at <= 0) {
        return Optional.empty();
      }
      try {
        return Optional.of(new Mark(text.substring(0, at), Long.parseLong(text.substring(at + 1))));
      } catch (NumberFormatException notOurs) {
        return Optional.empty();
      }
    }
  }

  /**
   * @param tables the checkpoint's tables by role ({@code sink}, {@code quarantine}, {@code late
   *     events}), in commit order
   */
  TableGuard(
      String pipelineId,
      String checkpointLocation,
      String batchAppId,
      Map<String, TableSink> tables) {
    this.pipelineId = pipelineId;
    this.checkpointLocation = checkpointLocation;
    this.batchAppId = batchAppId;
    this.tables = new LinkedHashMap<>(tables);
  }

  /** Takes the marks a commits entry recorded (a checkpoint written before marks has none). */
  void restore(Map<String, String> commitExtras) {
    tables
        .keySet()
        .forEach(
            role ->
                Mark.decode(commitExtras.get(MARK_PREFIX + role))
                    .ifPresent(m -> marks.put(role, m)));
    unmarked = marks.isEmpty();
  }

  /**
   * Checks that every table still holds batch {@code lastCommitted} and what this checkpoint wrote
   * to it; a table that passes is remembered at its current version.
   *
   * @param lastCommitted the checkpoint's last committed batch, -1 before the first
   * @throws TableLostException for the first table that does not
   */
  void verify(long lastCommitted) throws IOException {
    for (Map.Entry<String, TableSink> e : tables.entrySet()) {
      String role = e.getKey();
      TableSink table = e.getValue();
      Mark mark = marks.get(role);
      Optional<TableSink.TableFacts> found =
          table.facts(batchAppId, mark == null ? -1 : mark.version());
      if (found.isEmpty()) {
        continue; // a sink that cannot tell
      }
      TableSink.TableFacts facts = found.get();
      String lost = lost(facts, mark, mark != null || unmarked ? lastCommitted : -1);
      if (lost != null) {
        throw TableLostException.of(
            pipelineId,
            role,
            table.location(),
            lastCommitted,
            lost,
            checkpointLocation,
            table.waysOnAfterLoss(lastCommitted));
      }
      if (facts.exists()) {
        marks.put(role, new Mark(facts.tableId(), facts.version()));
      }
    }
  }

  /**
   * What happened to the table, or null if it holds what it should.
   *
   * @param lastCommitted the batch the table must hold, -1 for none
   */
  private static String lost(TableSink.TableFacts facts, Mark mark, long lastCommitted) {
    if (!facts.exists()) {
      return lastCommitted >= 0 || mark != null ? "it does not exist any more: deleted" : null;
    }
    if (mark != null && !facts.tableId().equals(mark.tableId())) {
      return "it is another table now (Delta table id "
          + facts.tableId()
          + ", this pipeline wrote to "
          + mark.tableId()
          + "): deleted and re-created, or replaced";
    }
    if (mark != null && facts.version() < mark.version()) {
      return "its latest version is "
          + facts.version()
          + ", older than version "
          + mark.version()
          + " it had: put back from an older copy";
    }
    if (lastCommitted >= 0 && facts.heldBatch() < lastCommitted) {
      return facts.heldBatch() < 0
          ? "it holds no batch of this checkpoint"
          : "it holds this checkpoint's batches up to " + facts.heldBatch() + " only";
    }
    if (!facts.rewrites().isEmpty()) {
      return "after this pipeline's last commit its data was taken out by "
          + String.join("; ", facts.rewrites());
    }
    return null;
  }

  /**
   * A batch committed: each table's mark moves to the version the batch committed (a table that
   * already held the batch, -1, keeps its mark).
   *
   * @param versions the version each table's commit made, by role
   */
  void committed(Map<String, Long> versions) {
    versions.forEach(
        (role, version) -> {
          Mark mark = marks.get(role);
          if (mark != null && version != null && version >= 0) {
            marks.put(role, new Mark(mark.tableId(), version));
          }
        });
  }

  /** The marks, for the commits entry: {@code table.<role>} = {@code <id>@<version>}. */
  Map<String, String> recorded() {
    Map<String, String> out = new LinkedHashMap<>();
    marks.forEach((role, mark) -> out.put(MARK_PREFIX + role, mark.encode()));
    return out;
  }
}
