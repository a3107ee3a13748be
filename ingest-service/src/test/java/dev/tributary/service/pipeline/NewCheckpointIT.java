package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new checkpoint on a table that already holds the pipeline's data (after a declaration change or
 * a lost checkpoint), against a real broker and local-disk tables: refused with the table's state
 * and the choices, and each choice ends with every record exactly once.
 */
class NewCheckpointIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String topic;

  @BeforeEach
  void firstCheckpointWritesTheFirstRecords() throws Exception {
    topic = broker.createTopic("new-checkpoint", 2);
    broker.send(topic, 0, records(0, 60));
    broker.send(topic, 1, records(60, 100));
    runAvailableNow(spec("checkpoint-a", "table", "earliest"));
    assertThat(ids("table")).hasSize(90); // ids ending in 7 are bad records: quarantined
    broker.send(topic, 0, records(100, 120));
    broker.send(topic, 1, records(120, 130));
  }

  @Test
  void aNewCheckpointIsRefusedWithTheTableItsLastBatchAndOffsetsAndTheChoices() throws Exception {
    long tableVersion = tableVersion("table");

    assertThatThrownBy(() -> runAvailableNow(spec("checkpoint-b", "table", "earliest")))
        .isInstanceOf(TableWrittenByAnotherCheckpointException.class)
        .hasMessageStartingWith(
            "Cannot start pipeline new-checkpoint-it with the new checkpoint "
                + dir.resolve("checkpoint-b"))
        .hasMessageContaining(
            "the table " + dir.resolve("table") + " already holds batches of this pipeline")
        .hasMessageContaining("last batch ")
        .hasMessageContaining("offsets " + topic + "/0:60, " + topic + "/1:40")
        .hasMessageContaining(
            "Starting from starting-offsets earliest would write those records a second time")
        .hasMessageContaining("set source.kafka.starting-offsets: table")
        .hasMessageContaining("point checkpoint back at the location that wrote the table")
        .hasMessageContaining("write to new sink, quarantine and late-events table paths");
    assertThat(tableVersion("table")).isEqualTo(tableVersion);
  }

  @Test
  void aNewCheckpointIsRefusedWhenOnlyTheQuarantineTableIsShared() throws Exception {
    PipelineSpec spec =
        spec(
            "checkpoint-b",
            "table-2",
            "earliest",
            "quarantine: { delta: { path: " + dir.resolve("table-quarantine") + " } }");

    assertThatThrownBy(() -> runAvailableNow(spec))
        .isInstanceOf(TableWrittenByAnotherCheckpointException.class)
        .hasMessageContaining(
            "the table " + dir.resolve("table-quarantine") + " already holds batches");
  }

  @Test
  void startingOffsetsTableContinuesRightAfterTheTable() throws Exception {
    PipelineSpec spec = spec("checkpoint-b", "table", "table");
    runAvailableNow(spec);
    broker.send(topic, 1, records(130, 150));
    runAvailableNow(spec); // the new checkpoint now has batches of its own

    assertExactlyOnce("table", 150);
  }

  @Test
  void aStatefulPipelineContinuesAfterTheTableWithEmptyState() throws Exception {
    String dedup = "deduplicate: { keys: [id] }";
    runAvailableNow(spec("checkpoint-s1", "dedup-table", "earliest", dedup));
    broker.send(topic, 0, List.of("{\"id\":1}", "{\"id\":2}")); // duplicates of ids the table holds

    assertThatThrownBy(
            () -> runAvailableNow(spec("checkpoint-s2", "dedup-table", "earliest", dedup)))
        .isInstanceOf(TableWrittenByAnotherCheckpointException.class);
    runAvailableNow(spec("checkpoint-s2", "dedup-table", "table", dedup));

    List<Long> ids = ids("dedup-table");
    Set<Long> expected = new TreeSet<>();
    for (long i = 0; i < 130; i++) {
      if (i % 10 != 7) {
        expected.add(i);
      }
    }
    assertThat(new TreeSet<>(ids)).isEqualTo(expected);
    // Every record after the table's offsets once; the state started empty, so the two late
    // duplicates of ids 1 and 2 are new to it (docs/PIPELINE_REFERENCE.md says so).
    assertThat(ids).hasSize(expected.size() + 2);
    assertThat(ids.stream().filter(id -> id == 1 || id == 2)).hasSize(4);
  }

  @Test
  void pointingBackAtTheOldCheckpointContinuesIt() throws Exception {
    assertThatThrownBy(() -> runAvailableNow(spec("checkpoint-b", "table", "earliest")))
        .isInstanceOf(TableWrittenByAnotherCheckpointException.class);

    runAvailableNow(spec("checkpoint-a", "table", "earliest"));

    assertExactlyOnce("table", 130);
  }

  @Test
  void newTablePathsProcessEverythingAgainOnce() throws Exception {
    runAvailableNow(spec("checkpoint-b", "table-2", "earliest"));

    assertExactlyOnce("table-2", 130);
    assertExactlyOnce("table", 100); // the old table is left as it was
  }

  @Test
  void aCheckpointFromBeforeCheckpointIdsKeepsItsTablesKeyedByThePipelineId() throws Exception {
    Path legacy = dir.resolve("checkpoint-legacy");
    PipelineSpec spec = spec("checkpoint-legacy", "table-legacy", "earliest");
    Files.createDirectories(legacy.resolve("metadata"));
    StringBuilder identity = new StringBuilder();
    new TreeMap<>(spec.checkpointIdentity())
        .forEach(
            (k, v) ->
                identity
                    .append(identity.isEmpty() ? "" : ",")
                    .append('"')
                    .append(k)
                    .append("\":\"")
                    .append(v.replace("\"", "\\\""))
                    .append('"'));
    Files.writeString(
        legacy.resolve("metadata/00000000000000000001"),
        "v1\n{\"formatVersion\":1,\"version\":1,"
            + "\"pipelineId\":\"new-checkpoint-it\",\"createdAt\":\"2026-11-29T08:00:00Z\",\"writtenAt\":"
            + "\"2026-11-29T08:00:00Z\",\"identity\":{"
            + identity
            + "}}\n",
        StandardCharsets.UTF_8);

    runAvailableNow(spec);

    try (ObjectStore store = ObjectStores.open(dir.resolve("table-legacy").toString(), null)) {
      var snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      assertThat(snapshot.latestTransactionVersion("new-checkpoint-it")).isPresent();
      assertThat(snapshot.state().transactions().keySet()).noneMatch(k -> k.contains("@"));
    }
    assertExactlyOnce("table-legacy", 130);
  }

  @Test
  void switchingAnExclusiveCheckpointToGroupNeedsANewCheckpointThatContinuesAfterTheTable()
      throws Exception {
    assertThatThrownBy(() -> runAvailableNow(group("checkpoint-a", "table", "earliest")))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageContaining("source.assignment");
    assertThatThrownBy(() -> runAvailableNow(group("checkpoint-g", "table", "earliest")))
        .isInstanceOf(TableWrittenByAnotherCheckpointException.class)
        .hasMessageContaining("already holds batches of this pipeline");

    runAvailableNow(group("checkpoint-g", "table", "table"));

    assertExactlyOnce("table", 130);
  }

  @Test
  void aNewExclusiveCheckpointIsRefusedOnTablesWrittenInGroupModeUnlessItContinuesAfterThem()
      throws Exception {
    runAvailableNow(group("checkpoint-g", "group-table", "earliest"));
    assertExactlyOnce("group-table", 130);
    broker.send(topic, 1, records(130, 140));

    assertThatThrownBy(() -> runAvailableNow(spec("checkpoint-e", "group-table", "earliest")))
        .isInstanceOf(TableWrittenByAnotherCheckpointException.class)
        .hasMessageContaining("already holds data of this pipeline written in consumer-group mode")
        .hasMessageContaining(topic + "/0:80, " + topic + "/1:50");
    runAvailableNow(spec("checkpoint-e", "group-table", "table"));

    assertExactlyOnce("group-table", 140);
  }

  /** The declaration of {@link #spec} with {@code assignment: group}. */
  private PipelineSpec group(String checkpoint, String table, String startingOffsets) {
    return PipelineParser.parse(
        yaml(checkpoint, table, startingOffsets)
            .replace(
                "max-offsets-per-trigger: 30",
                "max-offsets-per-trigger: 30\n    assignment: group"),
        "new-checkpoint-it.yaml",
        Map.of());
  }

  private void assertExactlyOnce(String table, int upTo) throws Exception {
    List<Long> ids = ids(table);
    Set<Long> expected = new TreeSet<>();
    Set<Long> bad = new TreeSet<>();
    for (long i = 0; i < upTo; i++) {
      (i % 10 == 7 ? bad : expected).add(i);
    }
    assertThat(ids).as("every good record once").hasSameSizeAs(new TreeSet<>(ids));
    assertThat(new TreeSet<>(ids)).isEqualTo(expected);
    List<String> quarantined = new ArrayList<>();
    for (Object[] q : rows(table + "-quarantine")) {
      quarantined.add(q[1] + "/" + q[2]); // partition/offset
    }
    assertThat(quarantined).as("every bad record once").hasSize(bad.size()).doesNotHaveDuplicates();
  }

  private static List<String> records(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(i % 10 == 7 ? "{\"id\": \"bad-" + i + "\"}" : "{\"id\":" + i + "}");
    }
    return out;
  }

  private PipelineSpec spec(
      String checkpoint, String table, String startingOffsets, String... extra) {
    return PipelineParser.parse(
        yaml(checkpoint, table, startingOffsets, extra), "new-checkpoint-it.yaml", Map.of());
  }

  private String yaml(String checkpoint, String table, String startingOffsets, String... extra) {
    return """
        pipeline: new-checkpoint-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            starting-offsets: %s
            max-offsets-per-trigger: 30
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s
        checkpoint: %s
        trigger: { available-now: true }
        %s"""
        .formatted(
            broker.bootstrapServers(),
            topic,
            startingOffsets,
            dir.resolve(table),
            dir.resolve(checkpoint),
            String.join("\n", extra));
  }

  private static void runAvailableNow(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private List<Long> ids(String table) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (Object[] row : rows(table)) {
      ids.add((Long) row[0]);
    }
    return ids;
  }

  private List<Object[]> rows(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      return TableContents.rows(store);
    }
  }

  private long tableVersion(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
    }
  }
}
