package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code expectations} through a real broker: each {@code on-violation} does what it says to the
 * rows that violate the rule (ids 3, 7 and 11 have a negative amount, id 15 none: null violates
 * too), the counts per rule reach the progress record and the sink's commit, and {@code fail} stops
 * {@code run} with exit 1 before anything is committed, naming the rule and the record.
 */
class ExpectationsIT {
  private static final int RECORDS = 20;
  private static final List<Long> VIOLATING = List.of(3L, 7L, 11L, 15L);
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String topic;

  @BeforeEach
  void produce() {
    topic = broker.createTopic("expectations", 1);
    List<String> values = new ArrayList<>();
    for (long id = 0; id < RECORDS; id++) {
      String amount = id == 15 ? "null" : VIOLATING.contains(id) ? "-5" : Long.toString(id + 1);
      values.add("{\"id\":%d,\"amount\":%s}".formatted(id, amount));
    }
    broker.send(topic, 0, values);
  }

  @Test
  void warnKeepsTheRowsAndCountsThemInProgressAndCommitHistory() throws Exception {
    BatchProgress batch = run("warn", "");
    assertThat(ids("table")).hasSize(RECORDS);
    assertThat(batch.expectations()).isEqualTo(Map.of("positive_amount", 4L));
    assertThat(batch.filteredRows()).isZero();
    assertThat(commitInfos("table"))
        .contains("\"expectationViolations\":\"{\\\"positive_amount\\\":4}\"");
  }

  @Test
  void dropRemovesTheRowsAsFilteredAndEveryViolatedRuleIsCounted() throws Exception {
    // id 3, 7, 11, 15 are odd too: both rules count them, the stronger action (drop) decides
    BatchProgress batch =
        run("drop", "  - { name: even_id, check: \"id % 2 = 0\", on-violation: warn }\n");
    TreeSet<Long> expected = new TreeSet<>();
    for (long id = 0; id < RECORDS; id++) {
      if (!VIOLATING.contains(id)) {
        expected.add(id);
      }
    }
    assertThat(ids("table")).isEqualTo(expected);
    assertThat(batch.expectations()).isEqualTo(Map.of("positive_amount", 4L, "even_id", 10L));
    assertThat(batch.filteredRows()).isEqualTo(4);
    assertThat(batch.inputRows())
        .isEqualTo(batch.outputRows() + batch.quarantinedRows() + batch.filteredRows());
  }

  @Test
  void quarantineSendsTheRecordsWithTheRuleAsTheirError() throws Exception {
    BatchProgress batch = run("quarantine", "");
    assertThat(ids("table"))
        .hasSize(RECORDS - VIOLATING.size())
        .doesNotContainAnyElementsOf(VIOLATING);
    assertThat(batch.quarantinedRows()).isEqualTo(4);
    try (ObjectStore quarantine = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      List<Object[]> rows = TableContents.rows(quarantine);
      assertThat(rows).hasSize(4);
      assertThat(rows)
          .allSatisfy(
              r ->
                  assertThat(Arrays.asList(r))
                      .anySatisfy(
                          v ->
                              assertThat(String.valueOf(v))
                                  .isEqualTo("expectation 'positive_amount' (amount > 0) failed")));
    }
  }

  @Test
  void failStopsRunBeforeAnyCommitNamingTheRuleAndTheRecord() throws Exception {
    Path file = pipeline("fail", "");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", "--pipeline", file.toString(), "--available-now"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("expectation 'positive_amount' (amount > 0) failed")
        .contains(topic + " partition 0 offset 3")
        .contains("nothing of the batch was committed");
    assertThat(ids("table")).as("no row committed").isEmpty();
  }

  @Test
  void validateNamesARuleWhoseCheckDoesNotCompile() throws Exception {
    Path file = pipeline("warn", "  - { name: bad, check: \"amunt > 0\" }\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"validate", file.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8))
        .contains("expectations[1] (bad).check")
        .contains("amunt");
  }

  private Path pipeline(String action, String moreRules) throws IOException {
    Path file = dir.resolve("expect.yaml");
    Files.writeString(
        file,
        """
        pipeline: expect-%s
        source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
        format: { json: { schema: { id: long, amount: long } } }
        expectations:
          - { name: positive_amount, check: "amount > 0", on-violation: %s }
        %s
        sink: { delta: { path: %s/table } }
        quarantine: { delta: { path: %s/quarantine } }
        checkpoint: %s/checkpoint
        """
            .formatted(action, broker.bootstrapServers(), topic, action, moreRules, dir, dir, dir));
    return file;
  }

  /** Runs the pipeline available-now; returns its single batch's progress. */
  private BatchProgress run(String action, String moreRules) throws Exception {
    Path file = pipeline(action, moreRules);
    ProgressLog progress = new ProgressLog(10);
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(
                PipelineParser.parse(Files.readString(file), file.toString(), Map.of())),
            new TriggerSpec.AvailableNow(),
            progress)) {
      run.run();
    }
    List<BatchProgress> batches = progress.last(10);
    assertThat(batches).hasSize(1);
    return batches.get(0);
  }

  private TreeSet<Long> ids(String table) throws IOException {
    return new TreeSet<>(TableContents.ids(dir.resolve(table)));
  }

  private String commitInfos(String table) throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.list(dir.resolve(table).resolve("_delta_log"))) {
      for (Path f : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        all.append(Files.readString(f));
      }
    }
    return all.toString();
  }
}
