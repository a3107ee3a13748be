package dev.tributary.service.join;

import static dev.tributary.service.join.DimensionTables.customer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stateless pipelines enriched by a local-disk Delta dimension table, against a real broker: left
 * and inner joins, a dimension that changes between batches, and one that changes between a crash
 * and the replay of the crashed batch (which must join with the version it recorded).
 */
class StreamJoinIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  DimensionTables customers;
  String topic;

  @BeforeEach
  void createDimensionAndTopic() throws Exception {
    customers =
        DimensionTables.create(
            dir.resolve("dims/customers"),
            List.of(
                customer("c1", "gold", "eu", 1),
                customer("c2", "silver", "us", 2),
                customer("c2", "bronze", "us", 3)));
    topic = broker.createTopic("join", 1);
  }

  private Path pipelineFile(String name, String join) throws Exception {
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(
        file,
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema:
              order_id: long
              customer_id: string
        join:
        %s
        sink:
          delta:
            path: %s/tables/%s
        checkpoint: %s/checkpoints/%s
        trigger: { processing-time: 100ms }
        """
            .formatted(
                name,
                broker.bootstrapServers(),
                topic,
                join.indent(2).stripTrailing(),
                dir,
                name,
                dir,
                name));
    return file;
  }

  private ProgressLog runAvailableNow(Path file) throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress;
  }

  private void orders(int from, String... customerIds) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < customerIds.length; i++) {
      String customer = customerIds[i] == null ? "null" : "\"" + customerIds[i] + "\"";
      values.add("{\"order_id\":" + (from + i) + ",\"customer_id\":" + customer + "}");
    }
    broker.send(topic, 0, values);
  }

  /** The sink's rows without the Kafka columns, sorted by order id then dimension columns. */
  private List<List<Object>> sink(String name) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/" + name).toString(), null)) {
      return TableContents.rows(store).stream()
          .map(
              r -> {
                List<Object> row = new ArrayList<>(Arrays.asList(r));
                row.subList(2, 6)
                    .clear(); // _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp
                return row;
              })
          .sorted(
              Comparator.comparing((List<Object> r) -> (Long) r.get(0))
                  .thenComparing(r -> String.valueOf(r.get(2))))
          .toList();
    }
  }

  private List<String> recordedVersions(String name) throws Exception {
    try (ObjectStore store =
        ObjectStores.open(dir.resolve("checkpoints/" + name).toString(), null)) {
      PipelineSpec spec = PipelineParser.parse(dir.resolve(name + ".yaml"), Map.of());
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      List<String> versions = new ArrayList<>();
      for (long batch = 0; checkpoint.offsets(batch).isPresent(); batch++) {
        OffsetsEntry entry = checkpoint.offsets(batch).get();
        versions.add(entry.extras().get("join.0.version"));
      }
      return versions;
    }
  }

  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  @Test
  void aLeftJoinEnrichesEveryRowAndTheNextBatchSeesTheNewDimensionVersion() throws Exception {
    Path file =
        pipelineFile(
            "left-join",
            """
        - delta: { path: %s }
          on: [customer_id]
          type: left
          columns: [segment, tier]
        """
                .formatted(customers.path()));
    orders(0, "c1", "c2", "c9", null);

    runAvailableNow(file);
    assertThat(sink("left-join"))
        .containsExactly(
            row(0L, "c1", "gold", 1L),
            row(1L, "c2", "bronze", 3L),
            row(1L, "c2", "silver", 2L),
            row(2L, "c9", null, null),
            row(3L, null, null, null));

    long v2 =
        customers.replace(
            List.of(customer("c1", "platinum", "eu", 9), customer("c9", "new", "eu", 5)));
    orders(4, "c1", "c9", "c2");
    runAvailableNow(file);

    assertThat(sink("left-join").subList(5, 8))
        .containsExactly(
            row(4L, "c1", "platinum", 9L), row(5L, "c9", "new", 5L), row(6L, "c2", null, null));
    assertThat(sink("left-join").subList(0, 5))
        .as("earlier batches keep what they joined with")
        .contains(row(0L, "c1", "gold", 1L));
    assertThat(recordedVersions("left-join")).containsExactly("1", Long.toString(v2));
    assertThat(lastSinkCommitInfo("left-join"))
        .as("the sink commit names the version it joined with")
        .containsEntry("join.0.version", Long.toString(v2));
  }

  private Map<String, Object> lastSinkCommitInfo(String name) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/" + name).toString(), null)) {
      long version = DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
      return new DeltaLog(store)
          .readCommit(version).stream()
              .filter(a -> a instanceof CommitInfo)
              .map(a -> ((CommitInfo) a).values())
              .findFirst()
              .orElseThrow();
    }
  }

  @Test
  void aRunningPipelineJoinsItsNextBatchWithTheNewDimensionVersion() throws Exception {
    Path file =
        pipelineFile(
            "running-join",
            """
        - delta: { path: %s }
          on: [customer_id]
          type: left
          columns: [segment]
        """
                .formatted(customers.path()));
    orders(0, "c1");
    ProgressLog progress = new ProgressLog(1000);
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec),
            new TriggerSpec.ProcessingTime(Duration.ofMillis(100)),
            progress)) {
      Thread runner =
          new Thread(
              () -> {
                try {
                  run.run();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      runner.start();
      try {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> outputRows(progress) == 1);
        orders(1, "c1");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> outputRows(progress) == 2);
        long v2 = customers.replace(List.<Object[]>of(customer("c1", "platinum", "eu", 9)));
        orders(2, "c1");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> outputRows(progress) == 3);

        assertThat(sink("running-join"))
            .containsExactly(
                row(0L, "c1", "gold"), row(1L, "c1", "gold"), row(2L, "c1", "platinum"));
        List<String> versions = recordedVersions("running-join");
        assertThat(versions)
            .startsWith("1")
            .endsWith(Long.toString(v2))
            .containsOnly("1", Long.toString(v2));
      } finally {
        run.stop();
        runner.join(30_000);
      }
      assertThat(runner.isAlive()).isFalse();
    }
  }

  private static long outputRows(ProgressLog progress) {
    return progress.last(1000).stream().mapToLong(BatchProgress::outputRows).sum();
  }

  @Test
  void anInnerJoinKeepsOnlyMatchedRowsWithEveryDimensionColumnButTheKey() throws Exception {
    Path file =
        pipelineFile(
            "inner-join",
            """
        - delta: { path: %s }
          on: [customer_id]
        """
                .formatted(customers.path()));
    orders(0, "c1", "c2", "c9", null);

    ProgressLog progress = runAvailableNow(file);

    assertThat(sink("inner-join"))
        .containsExactly(
            row(0L, "c1", "gold", "eu", 1L),
            row(1L, "c2", "bronze", "us", 3L),
            row(1L, "c2", "silver", "us", 2L));
    BatchProgress batch = progress.last(1).get(0);
    assertThat(batch.inputRows()).isEqualTo(4);
    assertThat(batch.filteredRows()).as("rows without a match").isEqualTo(2);
  }

  @Test
  void aBatchReplayedAfterACrashJoinsWithTheVersionItRecordedNotTheLatest() throws Exception {
    Path file =
        pipelineFile(
            "replay-join",
            """
        - delta: { path: %s }
          on: [customer_id]
          type: left
          columns: [segment]
        """
                .formatted(customers.path()));
    orders(0, "c1", "c2");
    Path log = dir.resolve("crash.log");
    String crashAt = CrashPoints.AFTER_OFFSETS_LOG + ":1";
    Process child =
        ChildJvm.start(
            List.of(
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dtributary.test.crash-at=" + crashAt),
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", file.toString()),
            log,
            dir);
    CrashRuns.assertHaltedAt(child, crashAt, log);
    assertThat(recordedVersions("replay-join")).containsExactly("1");

    customers.replace(
        List.of(customer("c1", "platinum", "eu", 9), customer("c2", "platinum", "us", 9)));
    ProgressLog progress = runAvailableNow(file);

    assertThat(progress.last(1000).get(0).replayed()).isTrue();
    assertThat(sink("replay-join"))
        .containsExactly(row(0L, "c1", "gold"), row(1L, "c2", "bronze"), row(1L, "c2", "silver"));
  }
}
