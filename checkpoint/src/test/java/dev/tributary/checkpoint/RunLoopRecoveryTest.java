package dev.tributary.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.testing.InMemoryObjectStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The checkpoint's half of the exactly-once argument, driven the way the engine drives it: a
 * deterministic stateful batch (a running count per key over a fixed source), a "crash" after each
 * step of one batch, then recovery by the plan. Whatever the crash point, the final state and logs
 * are those of a run without a crash: every offset counted exactly once.
 */
class RunLoopRecoveryTest {
  /** The step after which the process dies, during batch {@link #CRASH_BATCH}. */
  enum CrashAfter {
    NOTHING,
    OFFSETS,
    STATE_COMMIT,
    COMMIT
  }

  private static final int BATCHES = 6;
  private static final int CRASH_BATCH = 3;
  private static final SourcePartition P0 = new SourcePartition("events", 0);

  @TempDir Path dir;

  /** Offset o of the source holds key "k" + (o % 7). */
  private static byte[] keyAt(long offset) {
    return ("k" + offset % 7).getBytes(StandardCharsets.UTF_8);
  }

  private static final class Crash extends RuntimeException {}

  /** Runs until batch BATCHES-1 is committed, dying once at {@code crash}; restarts each time. */
  private TreeMap<String, Long> run(InMemoryObjectStore store, CrashAfter crash) throws Exception {
    boolean crashed = crash == CrashAfter.NOTHING;
    while (true) {
      Checkpoint checkpoint = Checkpoint.open(store, "counts", Map.of("group-by", "key"));
      RecoveryPlan plan = checkpoint.recover();
      long stateVersion = plan.stateVersionToLoad().orElse(StateStore.INITIAL_VERSION);
      try (StateStore state = StateStore.open(store, "count", stateVersion, dir.resolve("w"))) {
        long batch = plan.nextBatchId();
        long start = plan.startOffsets().getOrDefault(P0, 0L);
        try {
          while (batch < BATCHES) {
            OffsetsEntry entry;
            if (plan.batchToReplay().isPresent() && plan.batchToReplay().get().batchId() == batch) {
              entry = plan.batchToReplay().get();
            } else {
              entry =
                  new OffsetsEntry(
                      batch,
                      Map.of(P0, new OffsetRange(start, start + 10)),
                      OptionalLong.empty(),
                      Instant.ofEpochSecond(batch),
                      Map.of());
              checkpoint.writeOffsets(entry);
            }
            if (!crashed && batch == CRASH_BATCH && crash == CrashAfter.OFFSETS) {
              crashed = true;
              throw new Crash();
            }
            OffsetRange range = entry.ranges().get(P0);
            for (long o = range.start(); o < range.end(); o++) {
              byte[] old = state.get(keyAt(o));
              long count = old == null ? 0 : ByteBuffer.wrap(old).getLong();
              state.put(keyAt(o), ByteBuffer.allocate(8).putLong(count + 1).array());
            }
            state.commit(batch);
            if (!crashed && batch == CRASH_BATCH && crash == CrashAfter.STATE_COMMIT) {
              crashed = true;
              throw new Crash();
            }
            checkpoint.writeCommit(
                new CommitEntry(
                    batch, OptionalLong.empty(), Instant.ofEpochSecond(batch, 1), Map.of()));
            if (!crashed && batch == CRASH_BATCH && crash == CrashAfter.COMMIT) {
              crashed = true;
              throw new Crash();
            }
            start = range.end();
            batch++;
          }
        } catch (Crash c) {
          continue; // the process died; uncommitted in-memory state is lost with it
        }
        TreeMap<String, Long> counts = new TreeMap<>();
        try (StateIterator it = state.scan(new byte[0])) {
          it.forEachRemaining(
              e ->
                  counts.put(
                      new String(e.key(), StandardCharsets.UTF_8),
                      ByteBuffer.wrap(e.value()).getLong()));
        }
        return counts;
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CrashAfter.class)
  void aCrashAfterAnyStepRecoversToTheSameResult(CrashAfter crash) throws Exception {
    TreeMap<String, Long> expected = new TreeMap<>();
    for (long o = 0; o < BATCHES * 10; o++) {
      expected.merge(new String(keyAt(o), StandardCharsets.UTF_8), 1L, Long::sum);
    }
    InMemoryObjectStore store = new InMemoryObjectStore();

    TreeMap<String, Long> actual = run(store, crash);

    assertThat(actual).isEqualTo(expected);
    Checkpoint checkpoint = Checkpoint.open(store, "counts", Map.of("group-by", "key"));
    assertThat(checkpoint.recover().action()).isEqualTo(RecoveryPlan.Action.RESUME);
    assertThat(checkpoint.recover().nextBatchId()).isEqualTo(BATCHES);
    assertThat(checkpoint.latestOffsets().orElseThrow().ranges().get(P0))
        .isEqualTo(new OffsetRange(50, 60));
  }
}
