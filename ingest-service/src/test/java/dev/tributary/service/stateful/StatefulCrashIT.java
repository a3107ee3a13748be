package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.stateful.EventStream.Event;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 for a stateful pipeline: the seed query (pipelines/stateful-tumbling-append.yaml) runs in
 * a child JVM and is halted at each step of the batch lifecycle (and SIGKILLed at random moments),
 * restarted each time, then drained with an available-now run. Events are produced between runs, in
 * multiples of 50, enough before each halted run that its crash point is certainly reached. Three
 * partitions, one of them behind the others in event time, and 50 offsets per batch; the batches
 * the runs really made are read back from the checkpoint's offsets log (a batch reads its
 * partitions one after the other), so the sink and late-events tables must equal the {@link
 * Oracle}'s result over exactly those batches: no window twice, none missing, no value off,
 * whatever the state store went through, including replays after the state commit.
 */
class StatefulCrashIT {
  private static final int PER_BATCH = 50;
  private static final String[] POINTS = {
    CrashPoints.AFTER_OFFSETS_LOG, CrashPoints.MID_BATCH, CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT, CrashPoints.AFTER_SINK_COMMIT,
        CrashPoints.AFTER_STATE_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG
  };
  private static final int PARTITIONS = 3;

  /** Where each produced event landed: "partition:offset" to the event. */
  private static final Map<String, Event> BY_POSITION = new HashMap<>();

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.shared();
  }

  @Test
  void seedQueryResultIsExactAfterRepeatedKills() throws Exception {
    String topic = broker.newTopic("events-crash", PARTITIONS);
    Path work = Files.createDirectories(dir.resolve("work"));
    String yaml =
        Files.readString(Path.of("../pipelines/stateful-tumbling-append.yaml"))
            .replace("${KAFKA_BOOTSTRAP:-localhost:9092}", broker.bootstrapServers())
            .replace("${EVENTS_TOPIC:-events}", topic)
            .replace("${TRIBUTARY_DATA:-target/tributary-data}", work.toString())
            .replace(
                "starting-offsets: earliest",
                "starting-offsets: earliest\n    max-offsets-per-trigger: " + PER_BATCH)
            .replace("processing-time: 10s", "processing-time: 50ms");
    Path pipelineFile = work.resolve("pipeline.yaml");
    Files.writeString(pipelineFile, yaml);
    PipelineSpec spec = PipelineParser.parse(pipelineFile);
    StatefulPlan plan = PipelineFactory.compile(spec).stateful().orElseThrow();

    List<Event> events = EventStream.generate(99, 3000, PARTITIONS, 300);
    int produced = produce(topic, events, 0, 6 * PER_BATCH);
    Random random = new Random(20261129L);
    List<String> jvm =
        List.of(
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dtributary.state.dir=" + work.resolve("state"));
    for (int i = 0; i < 2 * POINTS.length; i++) {
      Path log = work.resolve("run-" + i + ".log");
      List<String> options = new ArrayList<>(jvm);
      boolean deterministic = i % 2 == 0;
      String point = POINTS[(i / 2) % POINTS.length];
      String crashAt = null;
      if (deterministic) {
        int occurrence =
            point.equals(CrashPoints.MID_BATCH) ? 1 + random.nextInt(120) : 1 + random.nextInt(3);
        crashAt = point + ":" + occurrence;
        produced = produce(topic, events, produced, freshEventsToReach(point, occurrence));
        options.add("-Dtributary.test.crash-at=" + crashAt);
      } else {
        produced = produce(topic, events, produced, 3 * PER_BATCH);
      }
      Process child =
          ChildJvm.start(
              options,
              "dev.tributary.service.cli.Main",
              List.of("run", "--pipeline", pipelineFile.toString()),
              log,
              work);
      if (deterministic) {
        CrashRuns.assertHaltedAt(child, crashAt, log);
      } else {
        // A kill that lands is certain: the run has committed a batch of its fresh events (its
        // progress line is in the log) and is still running when it is SIGKILLed, a random moment
        // later, wherever it is.
        Awaitility.await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> !child.isAlive() || Files.readString(log).contains("\"batchId\""));
        Thread.sleep(random.nextInt(1000));
        assertThat(child.isAlive())
            .as("the run is alive when it is killed; log:%n%s", Files.readString(log))
            .isTrue();
        child.destroyForcibly();
        child.waitFor();
      }
    }
    produce(topic, events, produced, events.size() - produced);
    Path log = work.resolve("drain.log");
    Process drain =
        ChildJvm.start(
            jvm,
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", pipelineFile.toString(), "--available-now"),
            log,
            work);
    CrashRuns.assertFinished(drain, log);

    List<List<Event>> batches = batchesOf(spec);
    assertThat(batches.stream().mapToInt(List::size).sum())
        .as("every event in one batch")
        .isEqualTo(events.size());
    List<String> columns = plan.inputSchema().fieldNames();
    Oracle.Expected expected = Oracle.compute(spec, columns, batches);
    assertThat(rows(spec.sink().path(), plan.outputSchema().size()))
        .containsExactlyInAnyOrderElementsOf(expected.table());
    int lateWidth =
        6; // the declared columns; the Kafka columns carry the real topic and broker time
    assertThat(rows(spec.lateEvents().orElseThrow().path(), lateWidth))
        .containsExactlyInAnyOrderElementsOf(
            expected.late().stream().map(r -> r.subList(0, lateWidth)).toList());
  }

  private static List<List<Object>> rows(String path, int width) throws Exception {
    try (ObjectStore store = ObjectStores.open(path, null)) {
      List<List<Object>> out = new ArrayList<>();
      for (Object[] r : TableContents.rows(store)) {
        out.add(Arrays.asList(Arrays.copyOf(r, width)));
      }
      return out;
    }
  }

  /**
   * The batches as the runs planned them (the checkpoint's offsets log), each with its events in
   * the order the engine reads them: partition after partition, offset order within each.
   */
  private static List<List<Event>> batchesOf(PipelineSpec spec) throws Exception {
    List<List<Event>> batches = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      for (long b = 0; ; b++) {
        Optional<OffsetsEntry> entry = checkpoint.offsets(b);
        if (entry.isEmpty()) {
          return batches;
        }
        List<Event> batch = new ArrayList<>();
        new TreeMap<>(entry.get().ranges())
            .forEach(
                (p, r) -> {
                  for (long o = r.start(); o < r.end(); o++) {
                    batch.add(BY_POSITION.get(p.partition() + ":" + o));
                  }
                });
        batches.add(batch);
      }
    }
  }

  /**
   * How many events to produce right before a run so that it certainly reaches the {@code
   * occurrence}-th time of {@code point}: events produced after the previous run died lie beyond
   * every range planned so far, so this run plans new batches of exactly {@link #PER_BATCH} of them
   * (every production is a multiple of it, which also keeps the batch boundaries the {@link Oracle}
   * assumes), and each new batch passes every per-batch point once (the quarantine table's data
   * files are written even when it gets no rows); {@code mid-batch} is reached once per event read.
   */
  private static int freshEventsToReach(String point, int occurrence) {
    int batches =
        point.equals(CrashPoints.MID_BATCH) ? (occurrence + PER_BATCH - 1) / PER_BATCH : occurrence;
    return Math.max(batches, 2) * PER_BATCH;
  }

  /** Produces {@code count} events from index {@code from} on; returns the index after the last. */
  private static int produce(String topic, List<Event> events, int from, int count)
      throws Exception {
    assertThat(from + count)
        .as("the generated stream is long enough for every run")
        .isLessThanOrEqualTo(events.size());
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    List<Event> batch = events.subList(from, from + count);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (Event e : batch) {
        String json =
            "{\"event_id\":\""
                + e.id()
                + "\",\"user_id\":\""
                + e.user()
                + "\",\"event_type\":\""
                + e.type()
                + "\",\"event_ts\":\""
                + e.ts()
                + "\",\"amount\":"
                + (e.amount() == null ? "null" : e.amount().toPlainString())
                + ",\"quantity\":"
                + e.quantity()
                + "}";
        // in order, each to its partition (the idempotent producer keeps the order of a
        // partition's records through retries); where each landed maps offsets back to events
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic, e.partition(), null, json.getBytes(StandardCharsets.UTF_8))));
      }
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata at = sent.get(i).get();
        BY_POSITION.put(at.partition() + ":" + at.offset(), batch.get(i));
      }
    }
    return from + count;
  }
}
