package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.stateful.EventStream.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property-based oracle tests: for every example stateful pipeline (each window type and output
 * mode), random event streams with duplicates, out-of-order and late events, cut into random
 * batches, must leave the sink table and the late-events table exactly as the direct computation in
 * {@link Oracle} says; with restarts and crashes (before the sink commit, before the state commit)
 * at random batches the result must be the same.
 */
class StatefulOracleTest {
  private static final List<String> PIPELINES =
      List.of(
          "stateful-tumbling-append",
          "stateful-sliding-update",
          "stateful-session-append",
          "stateful-tumbling-complete",
          "stateful-dedup-within-watermark",
          "stateful-running-update");
  private static final int SEEDS = Integer.getInteger("stateful.seeds", 6);

  @TempDir Path dir;

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String p : PIPELINES) {
      for (int seed = 1; seed <= SEEDS; seed++) {
        out.add(Arguments.of(p, seed));
      }
    }
    return out.stream();
  }

  static PipelineSpec spec(String name) {
    return PipelineParser.parse(
        Path.of("../pipelines/" + name + ".yaml"), Map.of("TRIBUTARY_DATA", "target/unused"));
  }

  static StatefulPlan plan(PipelineSpec spec) {
    return PipelineFactory.compile(spec).stateful().orElseThrow();
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("cases")
  void matchesTheOracle(String pipeline, int seed) throws Exception {
    assertMatchesTheOracle(pipeline, seed, EventStream.generate(seed, 150 + seed * 20), "plain");
  }

  /**
   * Three source partitions, each 15 minutes behind the previous one (more than any example's
   * watermark delay). With the global policy (Spark's) the lagging partitions' events are mostly
   * late; with {@code per-partition} the slowest partition with events in a batch sets the
   * watermark, so its events are not dropped as late because another partition is ahead.
   */
  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("cases")
  void skewedPartitionsMatchTheOracle(String pipeline, int seed) throws Exception {
    assertMatchesTheOracle(
        spec(pipeline), seed, EventStream.generate(seed, 150 + seed * 20, 3, 900), "skewed");
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("cases")
  void skewedPartitionsMatchTheOracleWithThePerPartitionPolicy(String pipeline, int seed)
      throws Exception {
    assertMatchesTheOracle(
        perPartition(pipeline),
        seed,
        EventStream.generate(seed, 150 + seed * 20, 3, 900),
        "skewed-per-partition");
  }

  /** The example pipeline with {@code watermark.policy: per-partition}. */
  private PipelineSpec perPartition(String name) throws Exception {
    String yaml = Files.readString(Path.of("../pipelines/" + name + ".yaml"));
    String changed =
        yaml.replace("delay: 10 minutes }", "delay: 10 minutes, policy: per-partition }");
    assertThat(changed).as("the example's watermark line").isNotEqualTo(yaml);
    Path file = Files.writeString(dir.resolve(name + ".yaml"), changed);
    return PipelineParser.parse(file, Map.of("TRIBUTARY_DATA", "target/unused"));
  }

  private void assertMatchesTheOracle(String pipeline, int seed, List<Event> events, String work)
      throws Exception {
    assertMatchesTheOracle(spec(pipeline), seed, events, work);
  }

  private void assertMatchesTheOracle(PipelineSpec spec, int seed, List<Event> events, String work)
      throws Exception {
    List<List<Event>> batches = EventStream.batches(events, seed);
    StatefulPlan plan = plan(spec);
    List<String> columns = plan.inputSchema().fieldNames();
    Oracle.Expected expected = Oracle.compute(spec, columns, batches);
    try (QueryRunner runner = new QueryRunner(plan, Files.createDirectories(dir.resolve(work)))) {
      for (List<Event> b : batches) {
        runner.batch(rows(b, columns), QueryRunner.Crash.NONE);
      }
      runner.drain();
      assertThat(runner.table()).containsExactlyInAnyOrderElementsOf(expected.table());
      assertThat(runner.late()).containsExactlyInAnyOrderElementsOf(expected.late());
    }
    assertThat(expected.table())
        .as("a stream whose expected table is empty proves nothing")
        .isNotEmpty();
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("cases")
  void restartsAndCrashesDoNotChangeTheResult(String pipeline, int seed) throws Exception {
    PipelineSpec spec = spec(pipeline);
    List<Event> events = EventStream.generate(seed, 150 + seed * 20);
    List<List<Event>> batches = EventStream.batches(events, seed);
    StatefulPlan plan = plan(spec);
    List<String> columns = plan.inputSchema().fieldNames();
    Oracle.Expected expected = Oracle.compute(spec, columns, batches);
    Random r = new Random(seed);
    try (QueryRunner runner =
        new QueryRunner(plan, Files.createDirectories(dir.resolve("crashes")))) {
      for (List<Event> b : batches) {
        if (r.nextInt(4) == 0) {
          runner.restart();
        }
        QueryRunner.Crash crash = QueryRunner.Crash.values()[r.nextInt(3)];
        runner.batch(rows(b, columns), crash);
      }
      runner.drain();
      assertThat(runner.table()).containsExactlyInAnyOrderElementsOf(expected.table());
      assertThat(runner.late()).containsExactlyInAnyOrderElementsOf(expected.late());
    }
  }

  static List<Object[]> rows(List<Event> events, List<String> columns) {
    List<Object[]> out = new ArrayList<>();
    events.forEach(e -> out.add(e.row(columns)));
    return out;
  }
}
