package dev.tributary.service.server;

import java.time.Instant;
import java.util.List;

/**
 * One range backfill job as the REST API shows it ({@code GET /api/pipelines/{id}/backfills}); the
 * pipeline's secrets masked in every text.
 *
 * @param job the job's id, unique in this service's run
 * @param pipeline the pipeline backfilled
 * @param state where the job stands
 * @param from the range's first instant, as requested
 * @param to the first instant after the range, as requested
 * @param into the table written
 * @param replace whether the range replaces the live table's rows
 * @param backfillId the backfill's id, the app id prefix of its txn actions (the same for the same
 *     pipeline, range and table: a job that posts them again continues the same backfill)
 * @param checkpoint the backfill's own checkpoint
 * @param startedAt when the job was accepted
 * @param endedAt when it ended; null while running
 * @param batches the batches this job has committed so far
 * @param summary what the run did (on success, and so far on a stop; for {@code replace} the
 *     staging run); null otherwise
 * @param swap what the swap into the live table did ({@code replace} only, on success); null
 *     otherwise
 * @param message the error of a FAILED job, how to continue a STOPPED one; null otherwise
 */
public record BackfillJobStatus(
    String job,
    String pipeline,
    BackfillJobState state,
    String from,
    String to,
    String into,
    boolean replace,
    String backfillId,
    String checkpoint,
    Instant startedAt,
    Instant endedAt,
    int batches,
    Summary summary,
    Swap swap,
    String message) {

  /**
   * What the backfill did: the fields of the summary {@code tributary backfill} prints.
   *
   * @param target the table written
   * @param rule which rows it writes
   * @param batches the batches of the run
   * @param rowsAdded rows written by the run
   * @param rowsOutside rows computed but outside the range, not written
   * @param files the table's data files after the run
   * @param version the table's version after the run
   * @param resumed whether the table already held commits of this backfill (an earlier run)
   * @param checkpoint the backfill's own checkpoint (delete it when done)
   * @param read what was read
   * @param edgeWindows windows left alone at the range's ends, and why
   */
  public record Summary(
      String target,
      String rule,
      int batches,
      long rowsAdded,
      long rowsOutside,
      int files,
      long version,
      boolean resumed,
      String checkpoint,
      String read,
      List<String> edgeWindows) {

    /** Copies the list. */
    public Summary {
      edgeWindows = List.copyOf(edgeWindows);
    }
  }

  /**
   * What {@code replace} did to the live table: one commit that removed the range's rows and added
   * the recomputed ones.
   *
   * @param liveTable the live table
   * @param version the live table's version holding the swap
   * @param alreadySwapped whether an earlier run had swapped it (this one changed nothing)
   * @param rowsRemoved rows of the range removed
   * @param filesRemoved files removed whole
   * @param filesRewritten files rewritten without the range's rows
   * @param rowsKept rows outside the range those rewritten files kept
   * @param rowsAdded recomputed rows added
   * @param filesAdded files added
   * @param attempts swap plans made (more than one after concurrent commits in the range)
   * @param stagingTable where the added files live, inside the live table's folder (never delete
   *     it)
   */
  public record Swap(
      String liveTable,
      long version,
      boolean alreadySwapped,
      long rowsRemoved,
      int filesRemoved,
      int filesRewritten,
      long rowsKept,
      long rowsAdded,
      int filesAdded,
      int attempts,
      String stagingTable) {}
}
