package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bronze is compacted and vacuumed while a silver pipeline reads it continuously (issue #12, item
 * 5): silver runs in process with a processing-time trigger (one file per batch, so it is often
 * behind), and each round appends commits to bronze, compacts it ({@code dataChange: false}: silver
 * must not read the rewrite as new rows) and vacuums it, all without waiting for silver. Bronze's
 * writer has a clock the test moves one hour per round, so the vacuum's retention (30 minutes)
 * deletes exactly the files that the previous rounds' compactions removed, which silver had read
 * before the round began, and never those of the current round, which it may not have read yet.
 * Silver never fails, and at the end holds every bronze row exactly once.
 *
 * <p>A vacuum that deletes files silver has planned but not read (silver stopped) fails its restart
 * loudly: {@link DeltaSourceMaintenanceIT#aVacuumThatDeletedAPlannedButUnreadRangeFailsTheReplay}.
 */
class DeltaSourceWhileMaintainedIT {
  private static final int ROUNDS = 6;
  private static final Duration RETENTION = Duration.ofMinutes(30);

  @TempDir Path dir;

  /** A clock only the test moves. */
  private static final class TestClock extends Clock {
    final AtomicLong millis = new AtomicLong(Instant.parse("2026-12-01T00:00:00Z").toEpochMilli());

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }
  }

  private static long rowsOut(ProgressLog progress) {
    return progress.last(100_000).stream().mapToLong(BatchProgress::outputRows).sum();
  }

  @Test
  void silverReadsOnWhileBronzeIsCompactedAndVacuumedAndHoldsEveryRowOnce() throws Exception {
    TestClock clock = new TestClock();
    Path file = dir.resolve("silver.yaml");
    Files.writeString(
        file,
        """
        pipeline: silver
        source:
          delta: { path: %1$s/bronze, max-files-per-trigger: 1 }
        transform:
          - derive: { id_times_two: "id * 2" }
        sink:
          delta: { path: %1$s/silver }
        checkpoint: %1$s/chk/silver
        trigger: { processing-time: 100ms }
        """
            .formatted(dir));
    ExecutorService runner = Executors.newSingleThreadExecutor();
    long appended = 0;
    long commits = 0;
    long vacuumed = 0;
    long compactionCommits = 0;
    try (ObjectStore bronzeStore = ObjectStores.open(dir.resolve("bronze").toString(), null)) {
      DeltaTable bronze = DeltaTable.open(bronzeStore, TableOptions.defaults().withClock(clock));
      bronze.create(DeltaSourceMaintenanceIT.BRONZE, List.of(), Map.of());
      for (int c = 0; c < 2; c++, commits++) {
        appended = append(bronze, commits, appended, 10);
      }
      PipelineSpec spec = PipelineParser.parse(file, Map.of());
      assertThat(spec.trigger()).isInstanceOf(TriggerSpec.ProcessingTime.class);
      ProgressLog progress = new ProgressLog(100_000);
      try (PipelineRun run =
          PipelineRun.open(PipelineFactory.compile(spec), spec.trigger(), progress)) {
        Future<?> silver =
            runner.submit(
                () -> {
                  run.run();
                  return null;
                });
        int removedByPreviousCompaction = 0;
        for (int round = 0; round < ROUNDS; round++) {
          clock.millis.addAndGet(Duration.ofHours(1).toMillis());
          for (int c = 0; c < 3; c++, commits++) {
            appended = append(bronze, commits, appended, 10);
          }
          CompactionResult compaction = bronze.compact(DeltaSourceMaintenanceIT.COMPACT_ALL);
          assertThat(compaction.filesRemoved()).as("round %d compacts", round).isPositive();
          compactionCommits++;
          appended = append(bronze, commits++, appended, 10);
          // Removed an hour ago or more, by an earlier round, before silver had caught up with it:
          // silver needs none of them. This round's removals are younger than the retention.
          List<String> deleted = bronze.vacuum(RETENTION).files();
          assertThat(deleted)
              .as("round %d vacuums the files the previous compaction removed", round)
              .hasSize(removedByPreviousCompaction);
          vacuumed += deleted.size();
          removedByPreviousCompaction = compaction.filesRemoved();

          long expected = appended;
          await()
              .atMost(Duration.ofMinutes(2))
              .failFast("silver stopped", silver::isDone)
              .until(() -> rowsOut(progress) == expected);
        }
        assertThat(silver.isDone()).as("silver still runs").isFalse();
        run.stop();
        silver.get(1, TimeUnit.MINUTES);
      } finally {
        runner.shutdownNow();
      }
      assertThat(vacuumed).as("the vacuums deleted files").isPositive();
      assertThat(dataChangeFalseCommits(bronzeStore))
          .as("compactions in bronze's log")
          .isEqualTo(compactionCommits);
    }
    assertThat(silverIds())
        .as("every bronze row once in silver")
        .isEqualTo(LongStream.range(0, appended).boxed().toList());
  }

  private static long append(DeltaTable bronze, long commit, long from, int rows)
      throws IOException {
    try (AppendTransaction tx = bronze.newAppend(new TransactionId("bronze-writer", commit))) {
      for (long id = from; id < from + rows; id++) {
        tx.write(new Object[] {id, "name-" + id});
      }
      tx.commit(Map.of());
    }
    return from + rows;
  }

  /** Commits whose added files all have {@code dataChange: false}: the compactions. */
  private static long dataChangeFalseCommits(ObjectStore store) throws IOException {
    DeltaLog log = new DeltaLog(store);
    long count = 0;
    for (long v : log.commitsAfter(-1)) {
      List<AddFile> adds = new ArrayList<>();
      for (Action a : log.readCommit(v)) {
        if (a instanceof AddFile add) {
          adds.add(add);
        }
      }
      if (!adds.isEmpty() && adds.stream().noneMatch(AddFile::dataChange)) {
        count++;
      }
    }
    return count;
  }

  private List<Long> silverIds() throws IOException {
    List<Long> ids = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("silver").toString(), null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      for (DataFile f : snapshot.files()) {
        try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
          it.forEachRemaining(
              row -> {
                assertThat(row[2]).isEqualTo((Long) row[0] * 2);
                ids.add((Long) row[0]);
              });
        }
      }
    }
    ids.sort(null);
    return ids;
  }
}
