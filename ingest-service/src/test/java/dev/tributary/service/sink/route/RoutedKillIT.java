package dev.tributary.service.sink.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.parse.avro.AvroWire;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
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
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end proof for routing: a pipeline from YAML routing each record to one of five tables
 * by a column of the record ({@code route: name}) runs in a child JVM and is halted like kill -9
 * ({@code tributary.test.crash-at}) at every crash point of a batch, including between two tables'
 * commits ({@code after-route-commit}); every halt is asserted to have happened there. After a
 * final available-now run, each table holds exactly the records of its route once, and the
 * quarantine exactly the malformed records and those whose route cannot name a folder, once: the
 * tables equal the batch computation of the stream.
 */
class RoutedKillIT {
  private static final int PARTITIONS = 3;
  private static final int MAX_OFFSETS = 100;

  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_ROUTE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG
  };

  @TempDir Path work;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();

  /** Each table's expected records as "partition/offset", sorted once built. */
  private final Map<String, List<String>> expected = new TreeMap<>();

  private final List<String> quarantined = new ArrayList<>();
  private String topic;
  private int produced;

  @Test
  void everyTableHoldsItsRoutesRecordsOnceAfterAKillAtEveryPoint() throws Exception {
    topic = broker.createTopic("route-kill", PARTITIONS);
    Path file = work.resolve("pipeline.yaml");
    Files.writeString(
        file,
        """
        pipeline: route-kill
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
        format:
          json:
            schema: { id: long, name: string }
        sink:
          delta:
            path: %s/silver/{route}
            route: name
        checkpoint: %s
        trigger: { processing-time: 50ms }
        """
            .formatted(
                broker.bootstrapServers(), topic, MAX_OFFSETS, work, work.resolve("checkpoint")));
    Random random = new Random(22L);
    produce(300, random);
    killAtEveryPoint(file, random, (count, r) -> produce(count, r));
    expected.values().forEach(l -> l.sort(null));
    Map<String, List<String>> tables = new TreeMap<>();
    try (ObjectStore silver = ObjectStores.open(work.resolve("silver").toString(), null)) {
      for (String route : RoutedSink.existingRoutes(silver)) {
        List<String> rows = new ArrayList<>();
        for (Object[] r : TableContents.rows(ObjectStores.under(silver, route))) {
          rows.add(r[3] + "/" + r[4]); // _kafka_partition, _kafka_offset
        }
        rows.sort(null);
        tables.put(route, rows);
      }
    }
    assertThat(tables).as("every routed record once, in its table").isEqualTo(expected);
    List<String> inQuarantine = new ArrayList<>();
    try (ObjectStore q = ObjectStores.open(work.resolve("silver-quarantine").toString(), null)) {
      TableContents.rows(q).forEach(r -> inQuarantine.add(r[1] + "/" + r[2]));
    }
    inQuarantine.sort(null);
    quarantined.sort(null);
    assertThat(inQuarantine)
        .as("every malformed or unroutable record once in the quarantine")
        .isEqualTo(quarantined);
  }

  /**
   * {@code columns: all} under the same kills: two topics of Avro records routed by {@code
   * _kafka_topic}, each table created with the writer's columns; from the middle of the run the
   * producer writes a v2 writer schema adding {@code note}, so kills also fall between a table's
   * column commit and its batch's commit. Each table then holds its topic's records once and has
   * gained {@code note}; the records that are not Avro are in the quarantine once.
   */
  @Test
  void columnsAllTablesHoldTheirTopicsRecordsOnceAfterAKillAtEveryPoint() throws Exception {
    List<String> topics =
        List.of(
            broker.createTopic("cols-kill-a", PARTITIONS), broker.createTopic("cols-kill-b", 2));
    try (TestSchemaRegistry registry = TestSchemaRegistry.start(work.resolve("registry"))) {
      Schema v1 = new Schema.Parser().parse(ROW_V1);
      Schema v2 = new Schema.Parser().parse(ROW_V2);
      Map<String, int[]> ids = new TreeMap<>();
      for (String t : topics) {
        ids.put(
            t,
            new int[] {
              registry.registerAvro(t + "-value", ROW_V1),
              registry.registerAvro(t + "-value", ROW_V2)
            });
      }
      Path file = work.resolve("pipeline.yaml");
      Files.writeString(
          file,
          """
          pipeline: cols-kill
          source:
            kafka:
              bootstrap-servers: %s
              topics: [%s]
              max-offsets-per-trigger: %d
          format:
            avro:
              registry: { url: "%s" }
              columns: all
          sink:
            delta:
              path: "%s/silver/{route}"
              route: _kafka_topic
          checkpoint: %s
          trigger: { processing-time: 50ms }
          """
              .formatted(
                  broker.bootstrapServers(),
                  String.join(", ", topics),
                  MAX_OFFSETS,
                  registry.url(),
                  work,
                  work.resolve("checkpoint")));
      Random random = new Random(23L);
      Producer avro = (count, r) -> produceAvro(count, r, topics, ids, v1, v2);
      avro.produce(300, random);
      killAtEveryPoint(file, random, avro);
    }
    expected.values().forEach(l -> l.sort(null));
    Map<String, List<String>> tables = new TreeMap<>();
    try (ObjectStore silver = ObjectStores.open(work.resolve("silver").toString(), null)) {
      for (String route : RoutedSink.existingRoutes(silver)) {
        ObjectStore store = ObjectStores.under(silver, route);
        List<String> columns =
            DeltaTable.open(store, TableOptions.defaults()).snapshot().schema().fieldNames();
        assertThat(columns)
            .as("the writer's columns, the Kafka columns, then the column v2 added")
            .containsExactly(
                "id",
                "name",
                "_kafka_topic",
                "_kafka_partition",
                "_kafka_offset",
                "_kafka_timestamp",
                "note");
        List<String> rows = new ArrayList<>();
        for (Object[] r : TableContents.rows(store)) {
          rows.add(r[3] + "/" + r[4]); // _kafka_partition, _kafka_offset
        }
        rows.sort(null);
        tables.put(route, rows);
      }
    }
    assertThat(tables).as("every record once, in its topic's table").isEqualTo(expected);
    List<String> inQuarantine = new ArrayList<>();
    try (ObjectStore q = ObjectStores.open(work.resolve("silver-quarantine").toString(), null)) {
      TableContents.rows(q).forEach(r -> inQuarantine.add(r[0] + "/" + r[1] + "/" + r[2]));
    }
    inQuarantine.sort(null);
    quarantined.sort(null);
    assertThat(inQuarantine)
        .as("every record that is not Avro once in the quarantine")
        .isEqualTo(quarantined);
  }

  private static final String ROW_V1 =
      """
      {"type": "record", "name": "Row", "fields": [
        {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]}""";

  private static final String ROW_V2 =
      """
      {"type": "record", "name": "Row", "fields": [
        {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
        {"name": "note", "type": ["null", "string"], "default": null}]}""";

  /**
   * Produces Avro records over the topics: v1 for the first 600, then v2; about one in twenty is
   * not in the wire format and must land in the quarantine.
   */
  private void produceAvro(
      int count, Random random, List<String> topics, Map<String, int[]> ids, Schema v1, Schema v2)
      throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      List<Boolean> bad = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String t = topics.get(random.nextInt(topics.size()));
        boolean malformed = random.nextInt(20) == 0;
        byte[] value;
        if (malformed) {
          value = ("not avro " + produced).getBytes(StandardCharsets.UTF_8);
        } else {
          boolean second = produced >= 600;
          Schema schema = second ? v2 : v1;
          GenericRecord row = new GenericData.Record(schema);
          row.put("id", (long) produced);
          row.put("name", "n" + produced);
          if (second) {
            row.put("note", "v2");
          }
          value = AvroWire.encode(ids.get(t)[second ? 1 : 0], schema, row);
        }
        produced++;
        int partitions = t.equals(topics.get(0)) ? PARTITIONS : 2;
        sent.add(producer.send(new ProducerRecord<>(t, random.nextInt(partitions), null, value)));
        bad.add(malformed);
      }
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata m = sent.get(i).get();
        if (bad.get(i)) {
          quarantined.add(m.topic() + "/" + m.partition() + "/" + m.offset());
        } else {
          expected
              .computeIfAbsent(m.topic(), r -> new ArrayList<>())
              .add(m.partition() + "/" + m.offset());
        }
      }
    }
  }

  /** Produces {@code count} more records of the stream under test. */
  @FunctionalInterface
  private interface Producer {
    void produce(int count, Random random) throws Exception;
  }

  /**
   * Runs the pipeline of {@code file} in a child JVM halted at each crash point in turn (fresh
   * records produced before each run so the occurrence is reached), then drains it.
   */
  private void killAtEveryPoint(Path file, Random random, Producer producer) throws Exception {
    for (String point : POINTS) {
      int occurrence =
          point.equals(CrashPoints.MID_BATCH) ? 1 + random.nextInt(150) : 1 + random.nextInt(3);
      String crashAt = point + ":" + occurrence;
      // enough fresh records that the run certainly reaches the occurrence: each new batch of at
      // most MAX_OFFSETS records lands in all five tables (about 20 records each), so it passes
      // every per-batch point, after-data-files and after-route-commit at least four times
      producer.produce(
          point.equals(CrashPoints.MID_BATCH) ? occurrence + 50 : occurrence * MAX_OFFSETS + 50,
          random);
      Path log = work.resolve("run-" + point + ".log");
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
              work);
      CrashRuns.assertHaltedAt(child, crashAt, log);
    }
    Path log = work.resolve("drain.log");
    Process drain =
        ChildJvm.start(
            List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"),
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", file.toString(), "--available-now"),
            log,
            work);
    CrashRuns.assertFinished(drain, log);
  }

  /**
   * Produces records over five routes; about one in twenty is malformed and one in twenty has a
   * route that cannot name a folder: both must land in the quarantine.
   */
  private void produce(int count, Random random) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      List<String> routes = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int dice = random.nextInt(20);
        String route = dice == 0 ? null : dice == 1 ? "bad/" + produced : "t" + produced % 5;
        String value =
            route == null
                ? "{\"id\": " + produced + ", \"name\": "
                : "{\"id\":" + produced + ",\"name\":\"" + route + "\"}";
        produced++;
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    random.nextInt(PARTITIONS),
                    null,
                    value.getBytes(StandardCharsets.UTF_8))));
        routes.add(route);
      }
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata m = sent.get(i).get();
        String at = m.partition() + "/" + m.offset();
        String route = routes.get(i);
        if (route == null || route.startsWith("bad/")) {
          quarantined.add(at);
        } else {
          expected.computeIfAbsent(route, r -> new ArrayList<>()).add(at);
        }
      }
    }
  }
}
