package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.SeedEvents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code tributary serve} processes (child JVMs) run the same stateless pipeline with {@code
 * source.kafka.assignment: group} on a topic of four partitions, with one sink table on local disk.
 * The REST {@code groups} of each shows its own share of the partitions and both members; every
 * record lands in the table once; the consumer group's committed offsets (what Kafka's lag tools
 * read) equal the sink table's positions; the metrics count the rebalances. Then one instance is
 * stopped (SIGTERM: the service's graceful shutdown, which leaves the group) and the other takes
 * every partition over, as its REST output and its rebalance log line show, and records produced
 * afterwards land once too. The session timeout is long (15 s) so that a loaded machine does not
 * make a member miss it; the stop hands the partitions over at once, whatever the timeout.
 */
class ServeGroupModeIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "group-serve-token-" + UUID.randomUUID();
  private static final String AUTH = "Bearer " + TOKEN;
  private static final Duration SLOW = Duration.ofSeconds(120);
  private static final int PARTITIONS = 4;
  private static final String PIPELINE = "shared-orders";

  @TempDir Path dir;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final List<Process> instances = new ArrayList<>();
  private final Set<String> produced = new HashSet<>();
  private String topic;
  private long nextId;

  @AfterEach
  void stopInstances() throws Exception {
    for (Process p : instances) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void twoServedInstancesShareThePartitionsAndTheSurvivorTakesOverAfterAStop() throws Exception {
    topic = broker.createTopic("group-serve", PARTITIONS);
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Path sink = dir.resolve("tables/orders");
    Files.writeString(
        pipelines.resolve("orders.yaml"),
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: group
            max-offsets-per-trigger: 20
            properties:
              session.timeout.ms: "15000"
              heartbeat.interval.ms: "1000"
        format:
          json:
            schema:
              id: long
        sink:
          delta: { path: %s }
        checkpoint: %s
        trigger: { processing-time: 200ms }
        """
            .formatted(
                PIPELINE, broker.bootstrapServers(), topic, sink, dir.resolve("checkpoint")));
    produce(10);

    Instance a = start("a", pipelines);
    Instance b = start("b", pipelines);
    a.awaitUp();
    b.awaitUp();

    // both get partitions: each one's REST shows its own share, disjoint, covering the topic, and
    // the broker's description lists both members with the same shares
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              JsonNode ga = a.group();
              JsonNode gb = b.group();
              Set<String> sharesA = strings(ga.get("assigned"));
              Set<String> sharesB = strings(gb.get("assigned"));
              assertThat(sharesA).as(a.tail()).isNotEmpty();
              assertThat(sharesB).as(b.tail()).isNotEmpty();
              assertThat(sharesA).doesNotContainAnyElementsOf(sharesB);
              Set<String> union = new HashSet<>(sharesA);
              union.addAll(sharesB);
              assertThat(union).isEqualTo(allPartitions());
              assertThat(ga.get("state").asText()).isEqualTo("STABLE");
              for (JsonNode view : List.of(ga, gb)) {
                Map<String, Set<String>> members = members(view);
                assertThat(members)
                    .as(view.toString())
                    .containsOnlyKeys(ga.get("memberId").asText(), gb.get("memberId").asText());
                assertThat(members.get(ga.get("memberId").asText())).isEqualTo(sharesA);
                assertThat(members.get(gb.get("memberId").asText())).isEqualTo(sharesB);
              }
              assertThat(ga.get("clientId").asText())
                  .startsWith("tributary-" + PIPELINE + "-")
                  .endsWith("/" + a.process.pid());
              assertThat(selfOf(ga).get("clientId").asText())
                  .isEqualTo(ga.get("clientId").asText());
              assertThat(ga.get("generation").asInt()).isPositive();
              assertThat(ga.get("error").isNull()).as(ga.toString()).isTrue();
            });
    produce(40);
    awaitEveryRecordOnce(sink);
    awaitGroupOffsetsAtTablePositions(sink);
    await()
        .atMost(SLOW)
        .untilAsserted(
            () -> {
              String metrics = a.http.get("/actuator/prometheus").body();
              assertThat(metrics)
                  .containsPattern(
                      "tributary_rebalances_total\\{application=\"tributary\",kind=\"assigned\","
                          + "pipeline=\""
                          + PIPELINE
                          + "\"} [1-9]")
                  // created up front: a dashboard sees a series before the first loss
                  .contains(
                      "tributary_rebalances_total{application=\"tributary\",kind=\"lost\",pipeline=\""
                          + PIPELINE
                          + "\"} ")
                  .contains(
                      "tributary_partitions_owned{application=\"tributary\",pipeline=\""
                          + PIPELINE
                          + "\"} "
                          + strings(a.group().get("assigned")).size()
                          + ".0");
            });

    // b stops (SIGTERM, the graceful shutdown of the service): it leaves the group, a takes all
    b.process.destroy();
    assertThat(b.process.waitFor(90, TimeUnit.SECONDS)).as("b stopped").isTrue();
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              JsonNode ga = a.group();
              assertThat(strings(ga.get("assigned"))).as(a.tail()).isEqualTo(allPartitions());
              assertThat(members(ga)).containsOnlyKeys(ga.get("memberId").asText());
            });
    assertThat(a.log())
        .as("the takeover is logged in one line with the whole assignment")
        .contains("consumer group tributary-" + PIPELINE + " (generation")
        .contains("this instance now owns " + topic + "-0..3 (4)");
    assertThat(b.log()).contains("revoked (moved to another instance)");
    produce(40);
    awaitEveryRecordOnce(sink);
    awaitGroupOffsetsAtTablePositions(sink);
  }

  /**
   * The seed query with {@code assignment: group}, served by both instances: each one owns some
   * source partitions (group {@code tributary-<pipeline>}) and some repartition partitions (group
   * {@code tributary-<pipeline>-repartition}), both shown by REST; the sink holds exactly the
   * windows the agreed watermark closed; after one instance stops, the other owns every partition
   * of both groups and the windows of later events land too, none twice.
   */
  @Test
  void aServedStatefulPipelineSharesItsSourceAndRepartitionPartitions() throws Exception {
    String windowsPipeline = "shared-windows";
    topic = broker.createTopic("group-serve-windows", PARTITIONS);
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Path sink = dir.resolve("tables/windows");
    Files.writeString(
        pipelines.resolve("windows.yaml"),
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: group
            properties:
              session.timeout.ms: "15000"
              heartbeat.interval.ms: "1000"
        format:
          json:
            schema: %s
        %s
        sink:
          delta: { path: %s }
        checkpoint: %s
        trigger: { processing-time: 200ms }
        """
            .formatted(
                windowsPipeline,
                broker.bootstrapServers(),
                topic,
                SeedEvents.SCHEMA,
                SeedEvents.QUERY.strip(),
                sink,
                dir.resolve("windows-checkpoint")));
    String source = "tributary-" + windowsPipeline;
    String repartition = source + "-repartition";
    Instance a = start("wa", pipelines);
    Instance b = start("wb", pipelines);
    a.awaitUp();
    b.awaitUp();
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              for (Instance i : List.of(a, b)) {
                Map<String, JsonNode> groups = i.groups(windowsPipeline);
                assertThat(groups).as(i.tail()).containsOnlyKeys(source, repartition);
                for (JsonNode g : groups.values()) {
                  assertThat(strings(g.get("assigned"))).as("%s of %s", g, i.tail()).isNotEmpty();
                  assertThat(g.get("members")).as(g.toString()).hasSize(2);
                }
              }
            });
    SeedEvents events = new SeedEvents(5, PARTITIONS, 15, 90, 5, 0);
    events.produce(broker, topic, 400);
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> assertThat(SeedEvents.windows(sink)).as(a.tail()).isEqualTo(events.expected()));

    b.process.destroy();
    assertThat(b.process.waitFor(90, TimeUnit.SECONDS)).as("b stopped").isTrue();
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              Map<String, JsonNode> groups = a.groups(windowsPipeline);
              assertThat(strings(groups.get(source).get("assigned")))
                  .as(a.tail())
                  .hasSize(PARTITIONS);
              assertThat(strings(groups.get(repartition).get("assigned")))
                  .as(a.tail())
                  .hasSize(PARTITIONS);
            });
    events.produce(broker, topic, 200);
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> assertThat(SeedEvents.windows(sink)).as(a.tail()).isEqualTo(events.expected()));
  }

  /** Sends {@code perPartition} records to every partition; remembers them as partition/offset. */
  private void produce(int perPartition) {
    for (int p = 0; p < PARTITIONS; p++) {
      List<String> values =
          IntStream.range(0, perPartition).mapToObj(i -> "{\"id\":" + (nextId++) + "}").toList();
      broker.send(topic, p, values);
    }
    try (Admin admin = broker.admin()) {
      var latest =
          admin
              .listOffsets(
                  allTopicPartitions().stream()
                      .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())))
              .all()
              .get();
      produced.clear();
      latest.forEach(
          (tp, info) ->
              LongStream.range(0, info.offset())
                  .forEach(o -> produced.add(tp.partition() + "/" + o)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits for a row of every record produced so far, then checks that none is there twice. */
  private void awaitEveryRecordOnce(Path sink) throws Exception {
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> rowKeys(sink).keySet().containsAll(produced));
    Map<String, Integer> counts = rowKeys(sink);
    assertThat(counts.keySet()).isEqualTo(produced);
    assertThat(counts.values()).as("every record exactly once").allMatch(c -> c == 1);
  }

  /**
   * The consumer group's committed offsets, as {@code kafka-consumer-groups --describe} reads them,
   * reach the sink table's positions (each instance commits them after each batch, asynchronously).
   */
  private void awaitGroupOffsetsAtTablePositions(Path sink) {
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              Map<SourcePartition, Long> positions = tablePositions(sink);
              assertThat(positions).hasSize(PARTITIONS);
              Map<SourcePartition, Long> committed = new TreeMap<>();
              try (Admin admin = broker.admin()) {
                Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin
                        .listConsumerGroupOffsets("tributary-" + PIPELINE)
                        .partitionsToOffsetAndMetadata()
                        .get();
                offsets.forEach(
                    (tp, o) ->
                        committed.put(new SourcePartition(tp.topic(), tp.partition()), o.offset()));
              }
              assertThat(committed).isEqualTo(positions);
            });
  }

  private Map<SourcePartition, Long> tablePositions(Path sink) throws Exception {
    try (ObjectStore store = ObjectStores.open(sink.toString(), null)) {
      return new TableTxns(PIPELINE, Optional.empty())
          .historyIn(DeltaTable.open(store, TableOptions.defaults()).snapshot())
          .positions();
    }
  }

  private static Map<String, Integer> rowKeys(Path sink) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    // the table exists once its first commit does (the folder comes a moment before)
    if (!Files.exists(sink.resolve("_delta_log/00000000000000000000.json"))) {
      return counts;
    }
    try (ObjectStore store = ObjectStores.open(sink.toString(), null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      int partition = snapshot.schema().indexOf("_kafka_partition");
      int offset = snapshot.schema().indexOf("_kafka_offset");
      for (DataFile f : snapshot.files()) {
        for (Object[] row : DataFiles.readAll(store, f, snapshot.schema())) {
          counts.merge(row[partition] + "/" + row[offset], 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  private Set<String> allPartitions() {
    Set<String> all = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      all.add(topic + "/" + p);
    }
    return all;
  }

  private List<TopicPartition> allTopicPartitions() {
    return IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
  }

  private static Set<String> strings(JsonNode array) {
    Set<String> out = new HashSet<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  /** The broker's description of the group: each member's id and partitions. */
  private static Map<String, Set<String>> members(JsonNode group) {
    Map<String, Set<String>> out = new HashMap<>();
    group
        .get("members")
        .forEach(m -> out.put(m.get("memberId").asText(), strings(m.get("assigned"))));
    return out;
  }

  private static JsonNode selfOf(JsonNode group) {
    for (JsonNode m : group.get("members")) {
      if (m.get("self").asBoolean()) {
        return m;
      }
    }
    throw new AssertionError("no member marked self in " + group);
  }

  private Instance start(String name, Path pipelines) throws Exception {
    int port = ChildJvm.freePort();
    Path log = dir.resolve(name + ".log");
    Process process =
        ChildJvm.start(
            List.of("-Xmx320m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of(
                "serve", "--pipelines-dir", pipelines.toString(), "--port", Integer.toString(port)),
            log,
            dir,
            Map.of("TRIBUTARY_API_TOKEN", TOKEN));
    instances.add(process);
    return new Instance(process, log, new Http("http://127.0.0.1:" + port));
  }

  /** One served instance: its process, its log and its REST API. */
  private record Instance(Process process, Path logFile, Http http) {
    void awaitUp() {
      await()
          .atMost(SLOW)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .failFast("serve exited:\n" + tail(), () -> !process.isAlive())
          .until(() -> http.get("/api/pipelines", AUTH).statusCode() == 200);
    }

    /** The groups of {@code pipeline} in {@code GET /api/pipelines/{id}}, by group id. */
    Map<String, JsonNode> groups(String pipeline) throws Exception {
      HttpResponse<String> response = http.get("/api/pipelines/" + pipeline + "?last=1", AUTH);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      Map<String, JsonNode> out = new TreeMap<>();
      JsonNode groups = JSON.readTree(response.body()).get("groups");
      assertThat(groups).as(response.body()).isNotNull();
      groups.forEach(g -> out.put(g.get("groupId").asText(), g));
      return out;
    }

    /** The pipeline's one group in {@code GET /api/pipelines/{id}}. */
    JsonNode group() throws Exception {
      HttpResponse<String> response = http.get("/api/pipelines/" + PIPELINE + "?last=1", AUTH);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode groups = JSON.readTree(response.body()).get("groups");
      assertThat(groups).as(response.body()).hasSize(1);
      assertThat(groups.get(0).get("groupId").asText()).isEqualTo("tributary-" + PIPELINE);
      return groups.get(0);
    }

    String log() throws Exception {
      return Files.readString(logFile);
    }

    String tail() {
      try {
        List<String> lines = Files.readAllLines(logFile);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }
  }
}
