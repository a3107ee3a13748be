package dev.tributary.service.engine;

/**
 * A table no longer holds the batches this pipeline's checkpoint committed to it: it was deleted,
 * emptied by an overwrite, restored to an older version, or replaced by another table. Writing on
 * would silently lose those batches' rows (the checkpoint would go on after them), so the pipeline
 * stops, for good: a permanent failure that names what is missing and the safe ways on (docs/
 * OPERATIONS.md, "A table that lost committed batches").
 */
public final class TableLostException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private TableLostException(String message) {
    super(message);
  }

  /**
   * @param pipelineId the pipeline
   * @param role which of the pipeline's tables ({@code sink}, {@code quarantine}, {@code late
   *     events})
   * @param location the table's location
   * @param batch the checkpoint's last committed batch the table should hold
   * @param what what happened to the table, as found
   * @param checkpoint the checkpoint's location
   * @param waysOn the safe ways on for this kind of table ({@link TableSink#waysOnAfterLoss})
   */
  public static TableLostException of(
      String pipelineId,
      String role,
      String location,
      long batch,
      String what,
      String checkpoint,
      String waysOn) {
    return new TableLostException(
        "Pipeline "
            + pipelineId
            + ": the "
            + role
            + " table at "
            + location
            + " no longer holds the batches this pipeline committed to it ("
            + what
            + "; the checkpoint at "
            + checkpoint
            + " has batch "
            + batch
            + " committed), so nothing is written over it. The ways on: "
            + waysOn);
  }

  /** The ways on after a Delta table lost batches ({@link TableSink#waysOnAfterLoss}'s default). */
  public static String deltaWaysOn(long batch) {
    return "restore the table (a backup, or Delta's RESTORE to the version of batch "
        + batch
        + " or later), then start again; or continue from what the table holds now with a new"
        + " checkpoint location and source.kafka.starting-offsets: table (the records after the"
        + " table's last batch are read again, the rows it lost are not); or deliberately start"
        + " over by deleting the checkpoint too, and the pipeline's other tables (quarantine,"
        + " late events), which hold the same batches: every record still in the source is"
        + " then read again into all of them.";
  }
}
