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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stateful pipeline enriched by a left join with a local-disk Delta dimension table, against a
 * real broker: the joined rows are deduplicated and counted per 10-minute window and per the
 * dimension's {@code segment} (append mode). The dimension changes between batches, and once more
 * between a crash (child JVM halted right after the offsets log) and the replay of the crashed
 * batch, which must join with the version that batch recorded: the final table says which version
 * each row joined with.
 */
class StatefulJoinIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  private Path pipelineFile(String id, String topic, Path dimension) throws Exception {
    Path file = dir.resolve(id + ".yaml");
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
              event_time: timestamp
        join:
          - delta: { path: %s }
            on: [customer_id]
            type: left
            columns: [segment]
        watermark: { column: event_time, delay: 1 minute }
        deduplicate: { keys: [order_id, event_time] }
        aggregate:
          window: { column: event_time, size: 10 minutes }
          group-by: [segment]
          measures: { orders: count() }
        output-mode: append
        sink:
          delta:
            path: %s/tables/%s
        checkpoint: %s/checkpoints/%s
        trigger: { processing-time: 100ms }
        """
            .formatted(id, broker.bootstrapServers(), topic, dimension, dir, id, dir, id));
    return file;
  }

  /**
   * One order per "customer@minute" (minutes after 10:00), from order id {@code from}; null: no
   * customer.
   */
  private void orders(String topic, int from, String... customersAtMinutes) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < customersAtMinutes.length; i++) {
      String[] parts = customersAtMinutes[i].split("@");
      String customer = parts[0].equals("null") ? "null" : "\"" + parts[0] + "\"";
      values.add(
          "{\"order_id\":"
              + (from + i)
              + ",\"customer_id\":"
              + customer
              + ",\"event_time\":\"2026-01-01T10:"
              + parts[1]
              + ":00Z\"}");
    }
    broker.send(topic, 0, values);
  }

  private static ProgressLog runAvailableNow(Path file) throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress;
  }

  /** The sink's rows as "window_start window_end segment orders", sorted. */
  private List<String> sink(String id) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/" + id).toString(), null)) {
      return TableContents.rows(store).stream()
          .map(r -> String.join(" ", Arrays.stream(r).map(String::valueOf).toList()))
          .sorted(Comparator.naturalOrder())
          .toList();
    }
  }

  private List<String> recordedVersions(Path file) throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      List<String> versions = new ArrayList<>();
      for (long batch = 0; checkpoint.offsets(batch).isPresent(); batch++) {
        OffsetsEntry entry = checkpoint.offsets(batch).get();
        versions.add(entry.extras().get("join.0.version"));
      }
      return versions;
    }
  }

  private static String window(int startMinute, String segment, long orders) {
    return "2026-01-01T10:%02d:00Z 2026-01-01T10:%02d:00Z %s %d"
        .formatted(startMinute, startMinute + 10, segment, orders);
  }

  @Test
  void aReplayedStatefulBatchJoinsWithTheVersionItRecordedAndLaterBatchesWithTheNewOne()
      throws Exception {
    // unique per run: the in-process runs keep their state's working copies under the temp
    // directory
    String id = "stateful-join-" + Long.toHexString(System.nanoTime());
    String topic = broker.createTopic("stateful-join", 1);
    DimensionTables customers =
        DimensionTables.create(
            dir.resolve("dims/customers"),
            List.of(customer("c1", "gold", "eu", 1), customer("c2", "silver", "us", 2)));
    Path file = pipelineFile(id, topic, customers.path());

    // batch 0 joins with version 1; order 0 comes twice (deduplicated) and c9 has no dimension row
    orders(topic, 0, "c1@01", "c2@02", "c9@03");
    orders(topic, 0, "c1@01");
    runAvailableNow(file);
    assertThat(sink(id)).as("no window is closed yet").isEmpty();

    // batch 1 is planned with version 2, then the child JVM halts before running it
    long v2 =
        customers.replace(
            List.of(customer("c1", "platinum", "eu", 9), customer("c2", "silver", "us", 2)));
    orders(topic, 3, "c1@04", "c2@12");
    Path log = dir.resolve("crash.log");
    String crashAt = CrashPoints.AFTER_OFFSETS_LOG + ":1";
    Process child =
        ChildJvm.start(
            List.of(
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dtributary.state.dir=" + dir.resolve("child-state"),
                "-Dtributary.test.crash-at=" + crashAt),
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", file.toString()),
            log,
            dir);
    CrashRuns.assertHaltedAt(child, crashAt, log);
    List<String> atCrash = recordedVersions(file);
    assertThat(atCrash)
        .as(
            "the crashed batch recorded version 2; those before it (a no-data batch may follow"
                + " batch 0) version 1")
        .endsWith(Long.toString(v2))
        .containsOnly("1", Long.toString(v2))
        .containsOnlyOnce(Long.toString(v2));

    // version 3 before the replay: batch 1 must still join with version 2, batch 2 with version 3
    long v3 =
        customers.replace(
            List.of(customer("c1", "diamond", "eu", 9), customer("c2", "copper", "us", 2)));
    orders(topic, 5, "c2@25");
    ProgressLog progress = runAvailableNow(file);

    List<BatchProgress> batches = progress.last(1000);
    assertThat(batches.get(0).replayed()).as("the crashed batch is replayed first").isTrue();
    assertThat(sink(id))
        .containsExactly(
            window(0, "gold", 1),
            window(0, "null", 1),
            window(0, "platinum", 1),
            window(0, "silver", 1),
            window(10, "silver", 1));
    List<String> after = recordedVersions(file);
    assertThat(after.subList(0, atCrash.size()))
        .as("the replay recorded nothing new")
        .isEqualTo(atCrash);
    assertThat(after.subList(atCrash.size(), after.size()))
        .as("the batches after the replay")
        .isNotEmpty()
        .containsOnly(Long.toString(v3));
  }

  @Test
  void anInnerJoinFeedsEachMatchToDeduplicationAndDropsRecordsWithoutOne() throws Exception {
    String id = "stateful-inner-join-" + Long.toHexString(System.nanoTime());
    String topic = broker.createTopic("stateful-inner-join", 1);
    DimensionTables customers =
        DimensionTables.create(
            dir.resolve("dims/inner"),
            List.of(
                customer("c1", "gold", "eu", 1),
                customer("c2", "silver", "us", 2),
                customer("c2", "bronze", "us", 3)));
    String yaml =
        Files.readString(pipelineFile(id, topic, customers.path()))
            .replace("    type: left\n", "")
            .replace(
                "deduplicate: { keys: [order_id, event_time] }",
                "deduplicate: { keys: [order_id, segment] }")
            .replace(
                """
            aggregate:
              window: { column: event_time, size: 10 minutes }
              group-by: [segment]
              measures: { orders: count() }
            """,
                "");
    Path file = dir.resolve(id + ".yaml");
    Files.writeString(file, yaml);
    // order 1 matches two dimension rows, order 2 none; order 0 comes twice
    orders(topic, 0, "c1@01", "c2@02", "c9@03");
    orders(topic, 0, "c1@01");

    ProgressLog progress = runAvailableNow(file);

    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/" + id).toString(), null)) {
      // order_id, customer_id, event_time, the four _kafka_* columns, segment
      assertThat(
              TableContents.rows(store).stream()
                  .map(r -> r[0] + " " + r[1] + " " + r[7])
                  .sorted()
                  .toList())
          .containsExactly("0 c1 gold", "1 c2 bronze", "1 c2 silver");
    }
    BatchProgress batch = progress.last(1000).get(0);
    assertThat(batch.inputRows()).isEqualTo(4);
    assertThat(batch.outputRows()).isEqualTo(3);
  }
}
