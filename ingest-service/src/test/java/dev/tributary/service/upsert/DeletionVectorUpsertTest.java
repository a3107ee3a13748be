package dev.tributary.service.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.CompactionResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.ProtocolSupport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code write: upsert} with {@code merge-strategy: deletion-vectors} through the real batch body,
 * processor and sink, in memory: a crash at every point of the batch, and compactions between a
 * merge's plan and its commit or running beside the pipeline, all leave the table equal to the last
 * value per key computed from the whole stream at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeletionVectorUpsertTest {
  @TempDir Path dir;

  static final String YAML =
      UpsertPipelineTest.YAML.replace(
          "delete-when: \"op = 'd'\"",
          "delete-when: \"op = 'd'\"\n    merge-strategy: deletion-vectors");

  /** Keys 0..9 on two partitions; record i has version i: upserts, deletes and tombstones. */
  static void append(InMemorySource.Log topic, int from, int to) {
    for (int i = from; i < to; i++) {
      long id = (i * 7L) % 10;
      int partition = (int) (id % 2);
      String key = Long.toString(id);
      if (i % 7 == 3) {
        topic.append(partition, key, UpsertPipelineTest.change(id, "gone" + i, i, "d"));
      } else if (i % 11 == 5) {
        topic.append(partition, key, null);
      } else {
        topic.append(partition, key, UpsertPipelineTest.change(id, "v" + i, i, "u"));
      }
    }
  }

  /** The batch computation: the last change of each key in stream order, deletes removing it. */
  static Map<Long, String> lastValuePerKey(int to) {
    Map<Long, String> out = new TreeMap<>();
    for (int i = 0; i < to; i++) {
      long id = (i * 7L) % 10;
      if (i % 7 == 3 || i % 11 == 5) {
        out.remove(id);
      } else {
        out.put(id, "v" + i + "@" + i);
      }
    }
    return out;
  }

  private static void run(MemoryPipeline pipeline, InMemorySource.Log topic) throws Exception {
    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, 2), Model.WRITE_AHEAD_LOG);
    process.loop().run(new TriggerSpec.AvailableNow());
    process.processor().close();
  }

  private static DeltaTable sinkTable(MemoryPipeline pipeline) {
    return DeltaTable.open(pipeline.sinkStore, TableOptions.defaults());
  }

  /** Live files carrying a deletion vector now. */
  private static long filesWithVectors(MemoryPipeline pipeline) throws IOException {
    return sinkTable(pipeline).snapshot().state().files().values().stream()
        .filter(a -> a.deletionVector() != null)
        .count();
  }

  static Stream<CrashAt> crashPoints() {
    List<CrashAt> out = new ArrayList<>();
    for (String point :
        List.of(
            CrashPoints.AFTER_PLAN,
            CrashPoints.AFTER_OFFSETS_LOG,
            CrashPoints.AFTER_DATA_FILES,
            CrashPoints.AFTER_QUARANTINE_COMMIT,
            CrashPoints.AFTER_SINK_COMMIT,
            CrashPoints.AFTER_COMMITS_LOG)) {
      for (int n : List.of(1, 3, 6)) {
        out.add(new CrashAt(point, n));
      }
    }
    for (int n : List.of(1, 9, 30)) {
      out.add(new CrashAt(CrashPoints.MID_BATCH, n));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("crashPoints")
  void aCrashAtAnyPointLeavesTheLastValueOfEveryKey(CrashAt crash) throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 2);
    append(topic, 0, 40);
    MemoryPipeline.Process first =
        pipeline.open(InMemorySource.of(topic, 2), Model.WRITE_AHEAD_LOG);
    assertThat(
            crash.runCrashing(
                () -> {
                  first.loop().run(new TriggerSpec.AvailableNow());
                  return null;
                }))
        .as("crashed at " + crash)
        .isTrue();
    first.processor().close();
    append(topic, 40, 60);
    run(pipeline, topic);
    assertThat(UpsertPipelineTest.table(pipeline)).isEqualTo(lastValuePerKey(60));
    assertThat(filesWithVectors(pipeline))
        .as("the merges marked rows rather than rewriting files")
        .isPositive();
    assertThat(sinkTable(pipeline).snapshot().state().protocol().supports("deletionVectors"))
        .isTrue();
    assertThat(sinkTable(pipeline).snapshot().properties())
        .containsEntry(ProtocolSupport.ENABLE_DELETION_VECTORS, "true");
  }

  @Test
  void aCompactionBetweenEveryMergesPlanAndItsCommitMakesItPlanAgainAndLosesNothing()
      throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 2);
    append(topic, 0, 60);
    DeltaTable other = DeltaTable.open(pipeline.sinkStore, TableOptions.defaults());
    AtomicInteger plans = new AtomicInteger();
    AtomicInteger applied = new AtomicInteger();
    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, 2), Model.WRITE_AHEAD_LOG);
    CrashPoints.onThisThread(
        point -> {
          // the merge's point, not the quarantine table's (which reaches it first)
          if (point.equals(CrashPoints.AFTER_DATA_FILES) && inUpsertSink()) {
            plans.incrementAndGet();
            try { // another process compacts the table while the merge is about to commit
              CompactionResult r = other.compact(new CompactionOptions(2, 1 << 20));
              if (r.filesRemoved() > 0) {
                applied.incrementAndGet();
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }
        },
        () -> {
          process.loop().run(new TriggerSpec.AvailableNow());
          return null;
        });
    process.processor().close();
    long conflicts = process.sink().commitCounters().conflicts();
    assertThat(applied.get())
        .as("compactions that rewrote files under a planned merge")
        .isGreaterThan(3);
    assertThat(conflicts)
        .as("merges that had marked rows of a file the compaction removed")
        .isPositive();
    assertThat(plans.get())
        .as("each conflicting merge was planned again")
        .isGreaterThanOrEqualTo((int) (process.sink().commitCounters().commits() + conflicts));
    assertThat(UpsertPipelineTest.table(pipeline)).isEqualTo(lastValuePerKey(60));
  }

  private static boolean inUpsertSink() {
    return StackWalker.getInstance()
        .walk(
            frames ->
                frames.anyMatch(f -> f.getClassName().startsWith(UpsertSink.class.getName())));
  }

  @Test
  void compactionsRunningBesideThePipelineLoseNoUpdate() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(YAML, dir);
    InMemorySource.Log topic = new InMemorySource.Log("customers", 2);
    append(topic, 0, 80);
    // opening the process creates the table the compactions run on
    MemoryPipeline.Process process =
        pipeline.open(InMemorySource.of(topic, 2), Model.WRITE_AHEAD_LOG);
    DeltaTable other = DeltaTable.open(pipeline.sinkStore, TableOptions.defaults());
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger compactions = new AtomicInteger();
    CompletableFuture<Void> compactor =
        CompletableFuture.runAsync(
            () -> {
              try {
                do {
                  if (other.compact(new CompactionOptions(2, 1 << 20)).filesRemoved() > 0) {
                    compactions.incrementAndGet();
                  }
                } while (!done.get());
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    try {
      process.loop().run(new TriggerSpec.AvailableNow());
    } finally {
      done.set(true);
      process.processor().close();
    }
    compactor.get(60, TimeUnit.SECONDS);
    assertThat(UpsertPipelineTest.table(pipeline))
        .as("with %d compactions beside the pipeline", compactions.get())
        .isEqualTo(lastValuePerKey(80));
    // the files hold no deleted row once a last compaction ran
    other.compact(new CompactionOptions(2, 1 << 20));
    assertThat(filesWithVectors(pipeline)).isZero();
    assertThat(UpsertPipelineTest.table(pipeline)).isEqualTo(lastValuePerKey(80));
  }
}
