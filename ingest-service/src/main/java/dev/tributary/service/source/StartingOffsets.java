package dev.tributary.service.source;

import java.time.Instant;

/** Where a partition starts when the checkpoint has never seen it. */
public sealed interface StartingOffsets {
  /** The earliest offset still retained. */
  record Earliest() implements StartingOffsets {}

  /** The end of the partition when the pipeline first starts: only new records. */
  record Latest() implements StartingOffsets {}

  /** The first offset whose record timestamp is at or after the instant (end if none). */
  record AtTimestamp(Instant timestamp) implements StartingOffsets {}
}
