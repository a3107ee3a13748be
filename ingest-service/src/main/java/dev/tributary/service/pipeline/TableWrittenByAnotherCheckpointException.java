package dev.tributary.service.pipeline;

import dev.tributary.config.StartingOffsets;
import dev.tributary.service.engine.TableTxns.TableHistory;
import dev.tributary.table.log.SetTransaction;
import java.time.Instant;
import java.util.stream.Collectors;

/**
 * A checkpoint without batches was about to write to a table that already holds batches of the same
 * pipeline written through another checkpoint. Permanent: the user chooses how to proceed.
 */
public final class TableWrittenByAnotherCheckpointException extends RuntimeException {
  private TableWrittenByAnotherCheckpointException(String message) {
    super(message);
  }

  static TableWrittenByAnotherCheckpointException refused(
      String pipelineId, String checkpoint, StartingOffsets declared, TableHistory history) {
    return new TableWrittenByAnotherCheckpointException(
        "Cannot start pipeline "
            + pipelineId
            + " with the new checkpoint "
            + checkpoint
            + ": the table "
            + history.location()
            + " already holds batches of this pipeline written through another checkpoint ("
            + describe(history)
            + "). Starting from starting-offsets "
            + declared
            + " would write those records a second time. Choose one: (1) set source.kafka.starting-offsets:"
            + " table to continue right after the offsets the sink table recorded (a stateful pipeline then"
            + " starts with empty state); (2) point checkpoint back at the location that wrote the table,"
            + " with the declaration it had; (3) write to new sink, quarantine and late-events table paths"
            + " to process the data again from starting-offsets.");
  }

  static TableWrittenByAnotherCheckpointException writtenInGroupMode(
      String pipelineId, String checkpoint, StartingOffsets declared, TableHistory history) {
    return new TableWrittenByAnotherCheckpointException(
        "Cannot start pipeline "
            + pipelineId
            + " with the new checkpoint "
            + checkpoint
            + ": the table "
            + history.location()
            + " already holds data of this pipeline written in consumer-group mode (source.kafka.assignment:"
            + " group; table version "
            + history.tableVersion()
            + ", offsets "
            + history.positions().entrySet().stream()
                .map(e -> e.getKey().topic() + "/" + e.getKey().partition() + ":" + e.getValue())
                .collect(Collectors.joining(", "))
            + "). Starting from starting-offsets "
            + declared
            + " would write those records a second time. Choose"
            + " one: (1) set source.kafka.starting-offsets: table to continue right after those offsets; (2) run"
            + " the pipeline with assignment: group again; (3) write to new sink and quarantine table paths.");
  }

  static TableWrittenByAnotherCheckpointException withoutPositions(
      String pipelineId, String checkpoint, TableHistory history) {
    return new TableWrittenByAnotherCheckpointException(
        "Cannot start pipeline "
            + pipelineId
            + " with the new checkpoint "
            + checkpoint
            + " at starting-offsets: table: the table "
            + history.location()
            + " holds batches of this pipeline ("
            + describe(history)
            + ") but no source offsets (it was written by a release before offsets were recorded in"
            + " tables). Point checkpoint back at the location that wrote the table, or write to new"
            + " table paths.");
  }

  private static String describe(TableHistory history) {
    SetTransaction last = history.latest().orElseThrow();
    String when =
        last.lastUpdated() == null ? "" : " committed " + Instant.ofEpochMilli(last.lastUpdated());
    String offsets =
        history.positions().isEmpty()
            ? "no offsets recorded"
            : "offsets "
                + history.positions().entrySet().stream()
                    .map(
                        e -> e.getKey().topic() + "/" + e.getKey().partition() + ":" + e.getValue())
                    .collect(Collectors.joining(", "));
    return "last batch "
        + last.version()
        + " of "
        + last.appId()
        + when
        + ", table version "
        + history.tableVersion()
        + ", "
        + offsets;
  }
}
