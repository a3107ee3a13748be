package dev.tributary.checkpoint;

import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;

/** Builders of log entries for tests. */
final class Entries {
  static final Instant T0 = Instant.parse("2026-11-29T08:00:00.123456789Z");

  private Entries() {}

  /** Batch {@code n} reading 10 offsets from two partitions of "orders", with a watermark. */
  static OffsetsEntry offsets(long n) {
    return new OffsetsEntry(
        n,
        Map.of(
            new SourcePartition("orders", 0), new OffsetRange(n * 10, n * 10 + 10),
            new SourcePartition("orders", 1), new OffsetRange(n * 5, n * 5)),
        OptionalLong.of(1_000_000L * n),
        T0.plusSeconds(n),
        Map.of("planner", "test"));
  }

  static CommitEntry commit(long n) {
    return new CommitEntry(
        n,
        OptionalLong.of(1_000_000L * (n + 1)),
        T0.plusSeconds(n).plusMillis(500),
        Map.of("table-version", Long.toString(n + 1)));
  }

  /** Writes offsets and commits for batches {@code 0..count-1}. */
  static void runBatches(Checkpoint checkpoint, int count) throws Exception {
    for (long n = 0; n < count; n++) {
      checkpoint.writeOffsets(offsets(n));
      checkpoint.writeCommit(commit(n));
    }
  }
}
