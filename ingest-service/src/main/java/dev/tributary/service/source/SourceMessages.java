package dev.tributary.service.source;

import dev.tributary.service.engine.BatchRange;

/** The source package's user-facing messages, built in one place. */
final class SourceMessages {
  private SourceMessages() {}

  /** A Delta source asked to continue a checkpoint whose latest batch it did not plan. */
  static String notADeltaCheckpoint(String pipelineId, String location, BatchRange previous) {
    String what =
        previous.offsets().isEmpty()
            ? "has no Delta position"
            : "holds Kafka offsets (" + previous.offsets().keySet() + ")";
    return "Pipeline "
        + pipelineId
        + ": the checkpoint's latest batch "
        + what
        + ", so source.delta ("
        + location
        + ") cannot continue it; a pipeline cannot switch sources on one checkpoint. Use a new"
        + " checkpoint location for the Delta source.";
  }
}
