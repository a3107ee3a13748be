package dev.tributary.service.sink.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routing by topic from a real broker: a {@code topic-pattern} pipeline with {@code route:
 * _kafka_topic} lands each topic in a table of its own, named by the topic, and a topic created
 * later gets its table at the next run; with {@code write: upsert}, each table holds the last value
 * of each key of its topic, and a tombstone deletes its key in its topic's table.
 */
class RoutedSinkIT {
  private static final int PARTITIONS = 2;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  private String spec(String prefix, String write) {
    return """
        pipeline: routed
        source:
          kafka:
            bootstrap-servers: %s
            topic-pattern: "%s-.*"
        format:
          json:
            schema: { id: long, name: string }
        sink:
          delta:
            path: %s/silver/{route}
            route: _kafka_topic
        %s
        checkpoint: %s/checkpoint
        """
        .formatted(broker.bootstrapServers(), prefix, dir, write, dir);
  }

  private void send(String topic, List<long[]> idAndVersion) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<?>> sent = new ArrayList<>();
      for (long[] r : idAndVersion) {
        String value = "{\"id\":%d,\"name\":\"%s-v%d\"}".formatted(r[0], topic, r[1]);
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    (int) (r[0] % PARTITIONS),
                    key(r[0]),
                    value.getBytes(StandardCharsets.UTF_8))));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    }
  }

  private static byte[] key(long id) {
    return ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8);
  }

  /** Sends a tombstone (a null value) for each id, to the id's partition. */
  private void tombstones(String topic, long... ids) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (long id : ids) {
        producer.send(new ProducerRecord<>(topic, (int) (id % PARTITIONS), key(id), null)).get();
      }
    }
  }

  private static List<long[]> records(int ids, int versions) {
    List<long[]> out = new ArrayList<>();
    for (int v = 0; v < versions; v++) {
      for (long id = 0; id < ids; id++) {
        out.add(new long[] {id, v});
      }
    }
    return out;
  }

  private static void run(String yaml) throws Exception {
    PipelineSpec spec = PipelineParser.parse(yaml, "routed.yaml", Map.of());
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  /** Every table under silver/: its rows as "id name", sorted, each checked to be its topic's. */
  private Map<String, List<String>> tables() throws Exception {
    Map<String, List<String>> out = new TreeMap<>();
    try (ObjectStore silver = ObjectStores.open(dir.resolve("silver").toString(), null)) {
      for (String route : RoutedSink.existingRoutes(silver)) {
        List<String> rows = new ArrayList<>();
        for (Object[] r : TableContents.rows(ObjectStores.under(silver, route))) {
          assertThat(r[2]).as("_kafka_topic of a row of table " + route).isEqualTo(route);
          rows.add(r[0] + " " + r[1]);
        }
        rows.sort(null);
        out.put(route, rows);
      }
    }
    return out;
  }

  private static List<String> rows(String topic, int ids, int fromVersion, int toVersion) {
    List<String> out = new ArrayList<>();
    for (int v = fromVersion; v < toVersion; v++) {
      for (long id = 0; id < ids; id++) {
        out.add(id + " " + topic + "-v" + v);
      }
    }
    out.sort(null);
    return out;
  }

  private static String prefix() {
    return "rt" + UUID.randomUUID().toString().substring(0, 6);
  }

  @Test
  void eachTopicOfThePatternLandsInItsOwnTableAndALaterTopicGetsOne() throws Exception {
    String prefix = prefix();
    String orders = broker.createTopic(prefix + "-orders", PARTITIONS);
    String customers = broker.createTopic(prefix + "-customers", PARTITIONS);
    send(orders, records(10, 2));
    send(customers, records(4, 1));
    run(spec(prefix, ""));
    assertThat(tables())
        .isEqualTo(Map.of(orders, rows(orders, 10, 0, 2), customers, rows(customers, 4, 0, 1)));
    try (ObjectStore quarantine =
        ObjectStores.open(dir.resolve("silver-quarantine").toString(), null)) {
      assertThat(TableContents.rows(quarantine))
          .as("the quarantine beside the folder, empty")
          .isEmpty();
    }

    String items = broker.createTopic(prefix + "-items", PARTITIONS);
    send(items, records(3, 1));
    send(orders, records(10, 3).subList(20, 30)); // version 2 of every order
    run(spec(prefix, ""));
    assertThat(tables())
        .isEqualTo(
            Map.of(
                orders,
                rows(orders, 10, 0, 3),
                customers,
                rows(customers, 4, 0, 1),
                items,
                rows(items, 3, 0, 1)));
  }

  @Test
  void aTopicCreatedWhileThePipelineRunsGetsItsTableInThatRun() throws Exception {
    String prefix = prefix();
    String orders = broker.createTopic(prefix + "-orders", PARTITIONS);
    send(orders, records(5, 1));
    PipelineSpec spec = PipelineParser.parse(spec(prefix, ""), "routed.yaml", Map.of());
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec),
            new TriggerSpec.ProcessingTime(Duration.ofMillis(100)),
            new ProgressLog(100))) {
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
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> tables().equals(Map.of(orders, rows(orders, 5, 0, 1))));
      String later = broker.createTopic(prefix + "-later", PARTITIONS);
      send(later, records(4, 1));
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  tables()
                      .equals(Map.of(orders, rows(orders, 5, 0, 1), later, rows(later, 4, 0, 1))));
      run.stop();
      runner.join(30_000);
      assertThat(runner.isAlive()).isFalse();
    }
  }

  @Test
  void anUpsertingPipelineKeepsTheLastValuePerKeyInEachTopicsTable() throws Exception {
    String prefix = prefix();
    String orders = broker.createTopic(prefix + "-orders", PARTITIONS);
    String customers = broker.createTopic(prefix + "-customers", PARTITIONS);
    String upsert = "    write: upsert\n    key: [id]";
    send(orders, records(10, 3));
    send(customers, records(4, 2));
    run(spec(prefix, upsert));
    assertThat(tables())
        .isEqualTo(Map.of(orders, rows(orders, 10, 2, 3), customers, rows(customers, 4, 1, 2)));

    String items = broker.createTopic(prefix + "-items", PARTITIONS);
    send(items, records(3, 2));
    send(orders, records(10, 5).subList(30, 50));
    run(spec(prefix, upsert));
    assertThat(tables())
        .isEqualTo(
            Map.of(
                orders,
                rows(orders, 10, 4, 5),
                customers,
                rows(customers, 4, 1, 2),
                items,
                rows(items, 3, 1, 2)));

    // a tombstone deletes its key in its topic's table only (route: _kafka_topic holds for it)
    tombstones(orders, 0, 3);
    tombstones(items, 1);
    run(spec(prefix, upsert));
    List<String> ordersLeft = new ArrayList<>(rows(orders, 10, 4, 5));
    ordersLeft.removeIf(r -> r.startsWith("0 ") || r.startsWith("3 "));
    List<String> itemsLeft = new ArrayList<>(rows(items, 3, 1, 2));
    itemsLeft.removeIf(r -> r.startsWith("1 "));
    assertThat(tables())
        .isEqualTo(
            Map.of(orders, ordersLeft, customers, rows(customers, 4, 1, 2), items, itemsLeft));
  }
}
