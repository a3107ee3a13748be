package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every progress model attacked at every crash point of the batch body and of the model, in process
 * and in milliseconds (the child-JVM kill -9 tests, e.g. {@code ExactlyOnceCrashIT}, stay the
 * end-to-end proof): a "process" dies at the n-th time it reaches a point ({@link CrashAt}), more
 * records arrive, the next process drains the topic, and then every record is exactly once in the
 * sink table or the quarantine table. Each crash is asserted to have happened, so a point that
 * became unreachable fails the test instead of passing it by luck.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressModelCrashTest {
  private static final int PARTITIONS = 3;
  private static final int BAD_EVERY = 7;

  @TempDir Path dir;

  /** The write-ahead log's points: three batches reach each of them at least three times. */
  static Stream<CrashAt> writeAheadLogPoints() {
    List<CrashAt> out = new ArrayList<>();
    for (String point :
        List.of(
            CrashPoints.AFTER_PLAN,
            CrashPoints.AFTER_OFFSETS_LOG,
            CrashPoints.AFTER_DATA_FILES,
            CrashPoints.AFTER_QUARANTINE_COMMIT,
            CrashPoints.AFTER_SINK_COMMIT,
            CrashPoints.AFTER_STATE_COMMIT,
            CrashPoints.AFTER_COMMITS_LOG)) {
      for (int n = 1; n <= 3; n++) {
        out.add(new CrashAt(point, n));
      }
    }
    for (int n : List.of(1, 37, 85)) {
      out.add(new CrashAt(CrashPoints.MID_BATCH, n));
    }
    return out.stream();
  }

  /** The points a batch of the table-positions model reaches (it has no logs). */
  static Stream<CrashAt> tablePositionPoints() {
    List<CrashAt> out = new ArrayList<>();
    for (String point :
        List.of(
            CrashPoints.AFTER_DATA_FILES,
            CrashPoints.AFTER_QUARANTINE_COMMIT,
            CrashPoints.AFTER_SINK_COMMIT,
            CrashPoints.AFTER_STATE_COMMIT)) {
      for (int n = 1; n <= 3; n++) {
        out.add(new CrashAt(point, n));
      }
    }
    for (int n : List.of(1, 37, 85)) {
      out.add(new CrashAt(CrashPoints.MID_BATCH, n));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writeAheadLogPoints")
  void writeAheadLogStatelessKeepsEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    crashThenDrain(MemoryPipeline.of(false, dir), Model.WRITE_AHEAD_LOG, crash, false);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writeAheadLogPoints")
  void writeAheadLogStatefulKeepsEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    crashThenDrain(MemoryPipeline.of(true, dir), Model.WRITE_AHEAD_LOG, crash, false);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writeAheadLogPoints")
  void writeAheadLogSurvivesTheSameCrashTwice(CrashAt crash) throws Exception {
    crashThenDrain(MemoryPipeline.of(true, dir), Model.WRITE_AHEAD_LOG, crash, true);
  }

  /** The write-ahead log's points and the point between the two inputs of a joined pipeline. */
  static Stream<CrashAt> twoInputPoints() {
    List<CrashAt> out = new ArrayList<>(writeAheadLogPoints().toList());
    for (int n = 1; n <= 3; n++) {
      out.add(new CrashAt(CrashPoints.AFTER_FIRST_INPUT, n));
    }
    // inside the second input of the first batch (30 main records come first)
    out.add(new CrashAt(CrashPoints.MID_BATCH, 35));
    return out.stream();
  }

  /**
   * Two inputs in one batch ({@link CompositeSource}, a stream-stream join's): both ranges are
   * written ahead and replayed exactly, so every record of either topic is once in the sink or the
   * quarantine, whichever point the process died at.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("twoInputPoints")
  void twoInputsKeepEveryRecordOfBothOnceAfterACrash(CrashAt crash) throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.of(true, dir);
    InMemorySource.Log main = topicWithRecords(30);
    InMemorySource.Log second = new InMemorySource.Log("second", 2);
    appendSecond(second, 0, 20);
    MemoryPipeline.Process first = pipeline.open(twoInputs(main, second), Model.WRITE_AHEAD_LOG);
    assertThat(crash.runCrashing(() -> runToEnd(first))).as("crashed at " + crash).isTrue();
    first.processor().close();
    append(main, 30, 45);
    appendSecond(second, 20, 30);
    MemoryPipeline.Process last = pipeline.open(twoInputs(main, second), Model.WRITE_AHEAD_LOG);
    runToEnd(last);
    last.processor().close();

    List<Long> expectedIds = new ArrayList<>();
    List<String> expectedBad = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (long o = 0; o < main.end(p); o++) {
        if (o % BAD_EVERY == 3) {
          expectedBad.add("events/" + p + "/" + o);
        } else {
          expectedIds.add(id(p, o));
        }
      }
    }
    for (int p = 0; p < 2; p++) {
      for (long o = 0; o < second.end(p); o++) {
        if (o % BAD_EVERY == 5) {
          expectedBad.add("second/" + p + "/" + o);
        } else {
          expectedIds.add(SECOND_IDS + id(p, o));
        }
      }
    }
    assertThat(pipeline.sinkRows().stream().map(r -> (Long) r[0]).toList())
        .as("sink ids")
        .containsExactlyInAnyOrderElementsOf(expectedIds);
    assertThat(pipeline.quarantineRows().stream().map(r -> r[0] + "/" + r[1] + "/" + r[2]).toList())
        .as("quarantined topic/partition/offset")
        .containsExactlyInAnyOrderElementsOf(expectedBad);
  }

  private static CompositeSource twoInputs(InMemorySource.Log main, InMemorySource.Log second) {
    return new CompositeSource(InMemorySource.of(main, 10), InMemorySource.of(second, 7));
  }

  private static final long SECOND_IDS = 1_000_000;

  private static void appendSecond(InMemorySource.Log topic, int from, int to) {
    for (int p = 0; p < 2; p++) {
      for (long o = from; o < to; o++) {
        topic.append(
            p,
            o % BAD_EVERY == 5
                ? "not json " + o
                : "{\"id\":" + (SECOND_IDS + id(p, o)) + ",\"v\":\"s\"}");
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tablePositionPoints")
  void tablePositionsKeepEveryRecordOnceAfterACrash(CrashAt crash) throws Exception {
    crashThenDrain(MemoryPipeline.of(false, dir), Model.TABLE_POSITIONS, crash, false);
  }

  /**
   * A group member frozen at a point of its batch (a GC pause) while another member takes its
   * partitions over and drains them: when it wakes up its batch is dropped, nothing of it visible.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("tablePositionPoints")
  void aZombieGroupMembersBatchIsDroppedWhenItWakesUp(CrashAt freeze) throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    InMemorySource.Log topic = topicWithRecords(30);
    AtomicReference<Set<SourcePartition>> zombieOwns = new AtomicReference<>(topic.all());
    MemoryPipeline.Process zombie =
        pipeline.open(InMemorySource.owning(topic, 10, zombieOwns::get), Model.TABLE_POSITIONS);
    MemoryPipeline.Process owner =
        pipeline.open(InMemorySource.owning(topic, 10, topic::all), Model.TABLE_POSITIONS);
    AtomicReference<Boolean> took = new AtomicReference<>(false);
    AtomicInteger reached = new AtomicInteger();
    CrashPoints.onThisThread(
        point -> {
          if (!took.get()
              && point.equals(freeze.point())
              && reached.incrementAndGet() == freeze.n()) {
            took.set(true);
            zombieOwns.set(Set.of()); // the group moved every partition to the owner
            try {
              owner.loop().run(new TriggerSpec.AvailableNow());
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          }
        },
        () -> {
          zombie.loop().run(new TriggerSpec.AvailableNow());
          return null;
        });
    assertThat(took.get()).as("the zombie reached " + freeze).isTrue();
    // frozen before its sink commit, the zombie's batch is refused; after it, it was complete
    boolean beforeSinkCommit =
        !freeze.point().equals(CrashPoints.AFTER_SINK_COMMIT)
            && !freeze.point().equals(CrashPoints.AFTER_STATE_COMMIT);
    assertThat(zombie.loop().droppedBatches())
        .as("the zombie's dropped batches")
        .isEqualTo(beforeSinkCommit ? 1 : 0);
    assertEveryRecordOnce(pipeline, topic);
  }

  @Test
  void aNewGroupMemberContinuesWhereTheTableEnds() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.of(false, dir);
    InMemorySource.Log topic = topicWithRecords(30);
    SourcePartition p0 = new SourcePartition("events", 0);
    Set<SourcePartition> rest = new java.util.TreeSet<>(topic.all());
    rest.remove(p0);
    pipeline
        .open(InMemorySource.owning(topic, 10, () -> Set.of(p0)), Model.TABLE_POSITIONS)
        .loop()
        .run(new TriggerSpec.AvailableNow());
    pipeline
        .open(InMemorySource.owning(topic, 10, () -> rest), Model.TABLE_POSITIONS)
        .loop()
        .run(new TriggerSpec.AvailableNow());
    append(topic, 30, 45);
    pipeline
        .open(InMemorySource.owning(topic, 10, topic::all), Model.TABLE_POSITIONS)
        .loop()
        .run(new TriggerSpec.AvailableNow());
    assertEveryRecordOnce(pipeline, topic);
  }

  private void crashThenDrain(MemoryPipeline pipeline, Model model, CrashAt crash, boolean twice)
      throws Exception {
    InMemorySource.Log topic = topicWithRecords(30);
    MemoryPipeline.Process first = pipeline.open(InMemorySource.of(topic, 10), model);
    assertThat(crash.runCrashing(() -> runToEnd(first))).as("crashed at " + crash).isTrue();
    first.processor().close(); // the killed process's files and locks are released
    append(topic, 30, 45);
    if (twice) {
      MemoryPipeline.Process second = pipeline.open(InMemorySource.of(topic, 10), model);
      // the replay reaches the point again (counted from the restart): crash there once more
      assertThat(new CrashAt(crash.point(), 1).runCrashing(() -> runToEnd(second)))
          .as("crashed again at " + crash.point())
          .isTrue();
      second.processor().close();
    }
    MemoryPipeline.Process last = pipeline.open(InMemorySource.of(topic, 10), model);
    runToEnd(last);
    last.processor().close();
    assertEveryRecordOnce(pipeline, topic);
  }

  private static Void runToEnd(MemoryPipeline.Process process) throws Exception {
    process.loop().run(new TriggerSpec.AvailableNow());
    return null;
  }

  /** Every valid record is one sink row; every bad one is one quarantine row. */
  private static void assertEveryRecordOnce(MemoryPipeline pipeline, InMemorySource.Log topic)
      throws Exception {
    List<Long> expectedIds = new ArrayList<>();
    List<String> expectedBad = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (long o = 0; o < topic.end(p); o++) {
        if (o % BAD_EVERY == 3) {
          expectedBad.add(p + "/" + o);
        } else {
          expectedIds.add(id(p, o));
        }
      }
    }
    assertThat(pipeline.sinkRows().stream().map(r -> (Long) r[0]).toList())
        .as("sink ids")
        .containsExactlyInAnyOrderElementsOf(expectedIds);
    assertThat(pipeline.quarantineRows().stream().map(r -> r[1] + "/" + r[2]).toList())
        .as("quarantined partition/offset")
        .containsExactlyInAnyOrderElementsOf(expectedBad);
  }

  private static InMemorySource.Log topicWithRecords(int perPartition) {
    InMemorySource.Log topic = new InMemorySource.Log("events", PARTITIONS);
    append(topic, 0, perPartition);
    return topic;
  }

  private static void append(InMemorySource.Log topic, int from, int to) {
    for (int p = 0; p < PARTITIONS; p++) {
      for (long o = from; o < to; o++) {
        topic.append(
            p,
            o % BAD_EVERY == 3
                ? "not json " + o
                : "{\"id\":" + id(p, o) + ",\"v\":\"" + p + "-" + o + "\"}");
      }
    }
  }

  private static long id(int partition, long offset) {
    return partition * 1000L + offset;
  }
}
