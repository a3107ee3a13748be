package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.testing.InstanceProcesses;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.service.testing.SeedEvents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scale-out of the seed stateful query (dedup by (event_id, event_ts), 5-minute tumbling windows
 * per event_type, count and sum, append, 10-minute watermark delay) with {@code assignment: group}
 * (docs/DESIGN.md, "Stateful pipelines in group mode"): a broker in its own process, a topic with
 * 12 partitions, instance child JVMs sharing one checkpoint location and one sink, quarantine and
 * late-events table. Three instances run; one instance's stage 2 is held (a test hook in a
 * sub-pipeline's batch; heartbeats go on) while the stream moves 16 minutes of event time on, then
 * that instance is frozen with SIGSTOP past the session timeout while another is SIGKILLed; the
 * survivor takes over every partition of both stages; the frozen one is resumed as a zombie; a
 * fourth instance joins and takes partitions over; then three available-now instances drain the
 * topic and end by themselves. Then the same query declared with {@code assignment: exclusive} runs
 * once over the same topic in one process.
 *
 * <p>The group tables must equal the single-instance tables, and both the windows computed here
 * from what was produced; every malformed record must be quarantined once; no row may be late.
 *
 * <p><b>Why nothing is late, and why it is deterministic.</b> Event time rises with the production
 * index ({@link #STEP} per event, jitter of up to ±2 minutes). Records are produced in chunks of at
 * most {@link #CHUNK} events (2 minutes of event time), and the next chunk is produced only once
 * stage 1 has committed every offset produced so far (the consumer group's committed offsets, which
 * stage 1 commits inside its Kafka transactions). So whatever a repartition partition has seen
 * before a row, including every marker, is from the row's own chunk or earlier: at most 2 + 2 × 2 =
 * 6 minutes ahead of the row's event time, less than the 10-minute delay, whoever reads what,
 * however slowly, and however the batches are cut. Duplicates (each event re-sent identically, to a
 * random partition, with probability 1/5, right after the original) are in the same chunk, so every
 * one is still in the dedup state when it arrives: dropped as a duplicate, never as late.
 *
 * <p><b>What would fail.</b> The agreed watermark is checked on the sub-checkpoints: no batch of
 * any partition applied a watermark above what its own partition recorded in the commits entry
 * before it (the minimum of all partitions' never is; a maximum is, for every partition behind
 * another, in particular the held ones, 16 minutes behind the rest when they resume), and every
 * partition's last batch applied the single-instance watermark, max(event time) - delay (a minimum
 * that never caught up would leave windows unemitted, too). The windows alone would not show a
 * maximum here: since every stage-1 batch sends its markers to every partition and the chunks keep
 * stage 1 within 6 minutes, a row is always in its partition's log before any marker 10 minutes
 * ahead of it exists, and a sub-pipeline reads its whole backlog in one batch, so no row could be
 * judged late even by a maximum. Duplicates counted twice (dedup not co-located with its keys, its
 * state lost when a partition moves) make the counts exceed the direct computation; a zombie's
 * stage-1 transaction that went through would also put source offsets twice into the repartition
 * topic, which is checked directly (dedup would hide it in the counts). A window emitted twice (a
 * zombie's sink commit not fenced) is a duplicate row in the sink.
 */
class GroupStatefulScaleOutIT {
  private static final int PARTITIONS = 12;
  private static final Duration AWAIT = Duration.ofSeconds(120);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** Event time per produced event. */
  private static final Duration STEP = Duration.ofMillis(500);

  /** At most this many events per chunk: 2 minutes of event time. */
  private static final int CHUNK = 240;

  private static final int JITTER_SECONDS = 120;
  private static final Duration DELAY = Duration.ofMinutes(10);
  private static final Duration WINDOW = Duration.ofMinutes(5);
  private static final String PIPELINE = "stateful-group";
  private static final String REFERENCE = "stateful-reference";

  /** A stage-2 only point (stage 1 keeps no state): holds a sub-pipeline, not the source reader. */
  private static final String HOLD_POINT = CrashPoints.AFTER_STATE_COMMIT;

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Tributary's INFO lines in the instances' logs (the command line's default is WARN): what moved,
   * who lost a race.
   */
  private static final List<String> INFO = List.of("-DTRIBUTARY_LOG_LEVEL=INFO");

  static KafkaBrokerProcess broker;

  private InstanceProcesses instances;
  private KafkaProducer<byte[], byte[]> producer;
  private Admin admin;
  private final Random random = new Random(20261201L);
  private final List<String> types = new ArrayList<>();

  /** Valid events by dedup key (event_id, event_ts): the first one sent. */
  private final Map<String, Event> events = new LinkedHashMap<>();

  /** Where every valid record landed, {@code partition/offset} (duplicates included). */
  private final Set<String> validOffsets = new HashSet<>();

  /** Where every malformed record landed, {@code partition/offset}. */
  private final Set<String> malformed = new HashSet<>();

  /** The next offset of every source partition after what was produced. */
  private final Map<Integer, Long> produced = new TreeMap<>();

  private String topic;
  private int nextEvent;

  private record Event(String id, String type, Instant ts, BigDecimal amount) {
    String json() {
      return "{\"event_id\":\""
          + id
          + "\",\"event_type\":\""
          + type
          + "\",\"event_ts\":\""
          + ts
          + "\",\"amount\":"
          + amount.toPlainString()
          + "}";
    }
  }

  @BeforeAll
  static void broker() throws Exception {
    // its log is under target/ (as the instances' logs), for a look after a failure
    broker = KafkaBrokerProcess.shared();
  }

  @AfterEach
  void close() throws Exception {
    if (instances != null) {
      instances.close();
    }
    if (producer != null) {
      producer.close();
    }
    if (admin != null) {
      admin.close();
    }
  }

  @Test
  void killedFrozenAndAddedInstancesComputeTheSingleInstanceWindows() throws Exception {
    Path work = InstanceProcesses.freshWorkDirectory("group-stateful-scale-out");
    instances = new InstanceProcesses(work);
    topic = broker.newTopic("events-stateful-group", PARTITIONS);
    admin =
        Admin.create(
            Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    producer = new KafkaProducer<>(p);

    // Small stage-1 batches in the group (many batch cuts). The reference reads the whole topic in
    // one batch: the records are not spread evenly over the partitions (while the zombie is held,
    // none go to its partitions), so batches that take the same share of every partition's backlog,
    // as exclusive mode's are, would move the watermark past rows of the partitions behind, and the
    // single-instance result would depend on the batch size.
    Path pipeline = writePipeline(work, PIPELINE, "group", 100);
    Path reference = writePipeline(work, REFERENCE, "exclusive", 1_000_000);
    StatefulPlan plan =
        PipelineFactory.compile(PipelineParser.parse(pipeline)).stateful().orElseThrow();
    ExchangeRecords exchange = new ExchangeRecords(plan, PARTITIONS);
    chooseTypes(plan, exchange);
    String sourceGroup = "tributary-" + PIPELINE;
    String stage2Group = "tributary-" + PIPELINE + "-repartition";
    Path sink = work.resolve("tables/" + PIPELINE);
    Path checkpoint = work.resolve("checkpoints/" + PIPELINE);
    Path release = work.resolve("release-zombie");
    Path armed = work.resolve("arm-zombie");

    // 1. three instances, each a member of both groups with partitions of both, each has committed
    // windows
    produceChunk(allPartitions());
    Process killed = instances.start("killed", pipeline, INFO);
    Process zombie =
        instances.start(
            "zombie",
            pipeline,
            List.of(
                INFO.get(0),
                "-Dtributary.test.hold-at=" + HOLD_POINT + ":1",
                "-Dtributary.test.hold-armed=" + armed,
                "-Dtributary.test.hold-release=" + release));
    Process survivor = instances.start("survivor", pipeline, INFO);
    List<Process> three = List.of(killed, zombie, survivor);
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              produceChunkWhenCaughtUp(sourceGroup, allPartitions());
              if (memberCount(sourceGroup) != 3 || memberCount(stage2Group) != 3) {
                return false;
              }
              for (Process i : three) {
                if (owned(sourceGroup, i).isEmpty()
                    || owned(stage2Group, i).isEmpty()
                    || !committedWindows(sink, i)) {
                  return false;
                }
              }
              return true;
            });
    awaitCaughtUp(sourceGroup, "three instances");

    // 2. hold the zombie's stage 2 inside a sub-pipeline's batch (its consumers' heartbeats go on:
    // no rebalance): its partitions of the repartition topic fall 16 minutes of event time behind
    // the others'. From now on records go only where another instance's stage 1 reads, in case the
    // zombie's stage 1 runs on the held thread (they would wait for the takeover, 16 minutes
    // behind).
    Set<Integer> heldPartitions = owned(stage2Group, zombie);
    Set<Integer> notZombies = new HashSet<>(allPartitions());
    notZombies.removeAll(owned(sourceGroup, zombie));
    Files.writeString(armed, "armed");
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              produceChunkWhenCaughtUp(
                  sourceGroup, notZombies); // its markers reach the zombie's partitions
              return instances.log("zombie").contains("hold point " + HOLD_POINT + ":1 reached");
            });
    awaitCaughtUp(sourceGroup, "before the hold");
    assertThat(owned(stage2Group, zombie))
        .as("the zombie's partitions, held")
        .isEqualTo(heldPartitions);
    Instant holdStart = eventTime(nextEvent);
    while (eventTime(nextEvent).isBefore(holdStart.plus(Duration.ofMinutes(16)))) {
      produceChunk(notZombies);
      awaitCaughtUp(sourceGroup, "while the zombie's stage 2 is held");
    }
    assertThat(instances.log("zombie"))
        .as("still held")
        .doesNotContain("hold point " + HOLD_POINT + ":1 released");
    // the other partitions have recorded the watermark of everything produced: the held ones are
    // 16 minutes behind them (what a maximum would apply to them once they resume)
    long everything = maxEventTimeMicros() - DELAY.toNanos() / 1000;
    Awaitility.await("the partitions not held record " + everything)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              for (int n = 0; n < PARTITIONS; n++) {
                if (!heldPartitions.contains(n) && ownWatermark(checkpoint, n) < everything) {
                  return false;
                }
              }
              return true;
            });

    // 3. freeze the zombie while it holds its sub-pipeline's batch, kill another: the survivor
    // takes
    // every partition of both groups over, and stage 1 reads everything
    Set<Integer> movedPartitions = new HashSet<>(heldPartitions);
    movedPartitions.addAll(owned(stage2Group, killed));
    long beforeTakeover = latestVersion(sink);
    InstanceProcesses.signal("STOP", zombie);
    InstanceProcesses.kill(killed);
    produceChunk(allPartitions());
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                owned(sourceGroup, survivor).size() == PARTITIONS
                    && owned(stage2Group, survivor).size() == PARTITIONS
                    && caughtUp(sourceGroup));
    // the survivor committed the frozen and the killed instance's partitions' windows after the
    // takeover: their state moved (the sink's txn app ids are <pipeline>.<n>@<checkpoint id>)
    awaitCommitted(
        sink,
        survivor,
        movedPartitions,
        beforeTakeover,
        "the zombie's and the killed instance's " + movedPartitions + " taken over");

    // the held batch (planned, its sink commit and state written, its commits entry not) was
    // replayed by the survivor: whoever runs a batch, it is the one its offsets entry fixes
    List<String> replayedHeld = new ArrayList<>();
    for (JsonNode b : progress("survivor")) {
      String id = b.path("pipeline").asText();
      if (b.path("replayed").asBoolean()
          && heldPartitions.stream().anyMatch(n -> id.equals(PIPELINE + "." + n))) {
        replayedHeld.add(id + "/" + b.path("batchId").asLong());
      }
    }
    assertThat(replayedHeld).as("the survivor replayed the zombie's held batch").hasSize(1);

    // 4. the zombie resumes inside its held batch: its commits entry loses the race to the
    // survivor's (the batch is never reported as the zombie's), its sub-pipelines and stage 1 find
    // their partitions lost and it joins again. (Its stage 1 may also read a batch on the
    // partitions
    // it still believes it owns and have it fenced off, "stage-1 batch N dropped": only if the
    // survivor had not committed them yet, so that is not waited for.)
    InstanceProcesses.signal("CONT", zombie);
    Files.writeString(release, "go");
    Awaitility.await("the zombie resumes and joins again")
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              produceChunkWhenCaughtUp(sourceGroup, allPartitions());
              return instances.log("zombie").contains("hold point " + HOLD_POINT + ":1 released")
                  && !owned(sourceGroup, zombie).isEmpty()
                  && !owned(stage2Group, zombie).isEmpty();
            });
    for (JsonNode b : progress("zombie")) {
      assertThat(b.path("pipeline").asText() + "/" + b.path("batchId").asLong())
          .as("the zombie never reports the held batch as its own")
          .isNotEqualTo(replayedHeld.get(0));
    }

    // 5. a fourth instance joins and takes partitions of both stages over
    Process added = instances.start("added", pipeline, INFO);
    Awaitility.await()
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              produceChunkWhenCaughtUp(sourceGroup, allPartitions());
              return !owned(sourceGroup, added).isEmpty()
                  && !owned(stage2Group, added).isEmpty()
                  && committedWindows(sink, added);
            });
    awaitCaughtUp(sourceGroup, "four instances");
    for (Process i : List.of(zombie, survivor, added)) {
      assertThat(i.isAlive()).as("instance still running; logs in %s", work).isTrue();
      InstanceProcesses.kill(i);
    }

    // 6. drain: three available-now instances end by themselves once the whole pipeline is done
    produceChunk(allPartitions());
    List<Process> drain = new ArrayList<>();
    for (int n = 1; n <= 3; n++) {
      drain.add(instances.start("drain-" + n, pipeline, INFO, List.of("--available-now")));
    }
    for (int n = 1; n <= 3; n++) {
      Process d = drain.get(n - 1);
      assertThat(InstanceProcesses.awaitExit(d, AWAIT.toSeconds()))
          .as("drain-%d ended; log:%n%s", n, instances.log("drain-" + n))
          .isTrue();
      assertThat(d.exitValue())
          .as("drain-%d's exit code; log:%n%s", n, instances.log("drain-" + n))
          .isZero();
    }
    assertThat(caughtUp(sourceGroup)).as("stage 1 committed every source offset").isTrue();

    // 7. the reference: one process, exclusive, same topic, its own checkpoint and tables
    Process single = instances.start("reference", reference, INFO, List.of("--available-now"));
    assertThat(InstanceProcesses.awaitExit(single, AWAIT.toSeconds()))
        .as("reference ended")
        .isTrue();
    assertThat(single.exitValue())
        .as("reference's exit code; log:%n%s", instances.log("reference"))
        .isZero();

    List<String> expected = directWindows();
    List<String> group = windows(sink);
    List<String> single1 = windows(work.resolve("tables/" + REFERENCE));
    assertThat(expected)
        .as("the data makes windows of every type")
        .hasSizeGreaterThan(types.size() * 4);
    assertThat(rows(work.resolve("tables/" + PIPELINE + "-late")))
        .as("nothing late in group mode")
        .isEmpty();
    assertThat(rows(work.resolve("tables/" + REFERENCE + "-late")))
        .as("nothing late in one process")
        .isEmpty();
    assertThat(single1)
        .as("one instance computes the windows of what was produced")
        .isEqualTo(expected);
    assertThat(group)
        .as("the group computes the single-instance windows, each once")
        .isEqualTo(single1);
    assertQuarantinedOnce(work.resolve("tables/" + PIPELINE + "-quarantine"));
    assertQuarantinedOnce(work.resolve("tables/" + REFERENCE + "-quarantine"));
    assertEverySourceRecordOnceInTheRepartitionTopic(plan, exchange);
    assertTheAgreedWatermarkIsTheMinimum(checkpoint);
    // every sub-pipeline committed, and the killed instance had committed before it died
    assertThat(
            TableCommits.of(sink).stream()
                .flatMap(c -> subPartitions(c).stream())
                .collect(Collectors.toSet()))
        .as("every repartition partition's windows were committed")
        .isEqualTo(allPartitions());
  }

  /** The progress records (one JSON line per batch) instance {@code name} wrote. */
  private List<JsonNode> progress(String name) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : instances.log(name).split("\n")) {
      if (line.startsWith("{\"pipeline\"")) {
        try {
          out.add(JSON.readTree(line));
        } catch (JsonProcessingException partial) {
          // the line being written right now; the next look sees it whole
        }
      }
    }
    return out;
  }

  private long maxEventTimeMicros() {
    Instant max = events.values().stream().map(Event::ts).max(Instant::compareTo).orElseThrow();
    return max.getEpochSecond() * 1_000_000L + max.getNano() / 1_000;
  }

  /**
   * A sub-checkpoint's log entries ({@code partitions/<n>/offsets|commits/<batch>}: a version line,
   * then JSON).
   */
  private static TreeMap<Long, JsonNode> entries(Path checkpoint, int partition, String log)
      throws Exception {
    TreeMap<Long, JsonNode> out = new TreeMap<>();
    Path dir = checkpoint.resolve("partitions").resolve(Integer.toString(partition)).resolve(log);
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (!name.matches("\\d+")) {
          continue; // a temp file of a write in progress
        }
        String text = Files.readString(f);
        out.put(Long.parseLong(name), JSON.readTree(text.substring(text.indexOf('\n') + 1)));
      }
    }
    return out;
  }

  /** The watermark partition {@code n}'s latest commits entry records (its own), or MIN_VALUE. */
  private static long ownWatermark(Path checkpoint, int partition) throws Exception {
    TreeMap<Long, JsonNode> commits = entries(checkpoint, partition, "commits");
    JsonNode w =
        commits.isEmpty() ? null : commits.lastEntry().getValue().get("nextWatermarkMicros");
    return w == null || w.isNull() ? Long.MIN_VALUE : w.asLong();
  }

  /**
   * The watermark every batch of every partition applied is the minimum of what the partitions
   * recorded: never above what the partition itself recorded in the commits entry before (a maximum
   * would be, for the partitions behind, such as the held ones after their takeover); and in the
   * end every partition applied the single-instance watermark, max(event time) - delay.
   */
  private void assertTheAgreedWatermarkIsTheMinimum(Path checkpoint) throws Exception {
    long single = maxEventTimeMicros() - DELAY.toNanos() / 1000;
    List<String> above = new ArrayList<>();
    int checked = 0;
    for (int n = 0; n < PARTITIONS; n++) {
      TreeMap<Long, JsonNode> offsets = entries(checkpoint, n, "offsets");
      TreeMap<Long, JsonNode> commits = entries(checkpoint, n, "commits");
      for (var e : offsets.entrySet()) {
        JsonNode applied = e.getValue().get("watermarkMicros");
        JsonNode before =
            commits.containsKey(e.getKey() - 1)
                ? commits.get(e.getKey() - 1).get("nextWatermarkMicros")
                : null;
        if (applied == null || applied.isNull() || before == null) {
          continue;
        }
        checked++;
        if (before.isNull() || applied.asLong() > before.asLong()) {
          above.add(
              "partition "
                  + n
                  + " batch "
                  + e.getKey()
                  + " applied "
                  + applied
                  + ", its own "
                  + before);
        }
      }
      assertThat(offsets).as("partition %d's batches", n).isNotEmpty();
      assertThat(offsets.lastEntry().getValue().path("watermarkMicros").asLong())
          .as("partition %d's last batch applied max(event time) - delay", n)
          .isEqualTo(single);
    }
    assertThat(checked).as("batches checked").isGreaterThan(PARTITIONS * 10);
    assertThat(above).as("batches that applied a watermark above their partition's own").isEmpty();
  }

  private Path writePipeline(Path work, String id, String assignment, int maxOffsetsPerTrigger)
      throws Exception {
    Path tables = work.resolve("tables");
    Path file = work.resolve(id + ".yaml");
    Files.writeString(
        file,
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            starting-offsets: earliest
            assignment: %s
            max-offsets-per-trigger: %d
            properties:
              session.timeout.ms: "6000"
              heartbeat.interval.ms: "1000"
        format:
          json:
            schema: %s
        %s
        late-events:
          delta: { path: "%s" }
        quarantine:
          delta: { path: "%s" }
        sink:
          delta: { path: "%s" }
        checkpoint: "%s"
        trigger: { processing-time: 200ms }
        """
            .formatted(
                id,
                broker.bootstrapServers(),
                topic,
                assignment,
                maxOffsetsPerTrigger,
                SeedEvents.SCHEMA,
                SeedEvents.QUERY.strip(),
                tables.resolve(id + "-late"),
                tables.resolve(id + "-quarantine"),
                tables.resolve(id),
                work.resolve("checkpoints/" + id)));
    return file;
  }

  /**
   * One event type per repartition partition (the first names that hash there): every sub-pipeline
   * carries rows and state, so whichever partitions an instance owns, killing, freezing or holding
   * it moves state.
   */
  private void chooseTypes(StatefulPlan plan, ExchangeRecords exchange) {
    int typeColumn = plan.inputSchema().fieldNames().indexOf("event_type");
    Map<Integer, String> byPartition = new TreeMap<>();
    for (int n = 0; byPartition.size() < PARTITIONS; n++) {
      Object[] row = new Object[plan.inputSchema().fieldNames().size()];
      String type = "type-" + n;
      row[typeColumn] = type;
      byPartition.putIfAbsent(exchange.row(row).partition(), type);
    }
    types.addAll(byPartition.values());
  }

  private static Set<Integer> allPartitions() {
    return IntStream.range(0, PARTITIONS).boxed().collect(Collectors.toSet());
  }

  private static Instant eventTime(int index) {
    return T0.plus(STEP.multipliedBy(index));
  }

  /**
   * Produces {@link #CHUNK} events to the given partitions (chosen at random among them), each
   * re-sent identically with probability 1/5 right after it, and one malformed record in twenty;
   * remembers where each landed.
   */
  private void produceChunk(Set<Integer> partitions) throws Exception {
    List<Integer> targets = new ArrayList<>(new TreeSet<>(partitions));
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    List<Event> sentEvents = new ArrayList<>(); // null for a malformed record
    for (int i = 0; i < CHUNK; i++) {
      int index = nextEvent++;
      int jitter = random.nextInt(2 * JITTER_SECONDS + 1) - JITTER_SECONDS;
      Event e =
          new Event(
              "ev-" + index,
              types.get(random.nextInt(types.size())),
              eventTime(index).plusSeconds(jitter),
              BigDecimal.valueOf(random.nextInt(100_000), 2));
      byte[] key = Long.toHexString(random.nextLong()).getBytes(StandardCharsets.UTF_8);
      byte[] value = e.json().getBytes(StandardCharsets.UTF_8);
      int copies = random.nextInt(5) == 0 ? 2 : 1;
      for (int c = 0; c < copies; c++) {
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic, targets.get(random.nextInt(targets.size())), key, value)));
        sentEvents.add(e);
      }
      events.putIfAbsent(e.id() + "|" + e.ts(), e);
      if (random.nextInt(20) == 0) {
        String bad = "{\"event_id\":\"bad-" + index + "\",\"event_ts\":";
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    targets.get(random.nextInt(targets.size())),
                    key,
                    bad.getBytes(StandardCharsets.UTF_8))));
        sentEvents.add(null);
      }
    }
    producer.flush();
    for (int i = 0; i < sent.size(); i++) {
      RecordMetadata m = sent.get(i).get();
      String where = m.partition() + "/" + m.offset();
      (sentEvents.get(i) == null ? malformed : validOffsets).add(where);
      produced.merge(m.partition(), m.offset() + 1, Math::max);
    }
  }

  /**
   * Produces the next chunk if stage 1 has committed everything produced so far (see the class
   * comment).
   */
  private void produceChunkWhenCaughtUp(String group, Set<Integer> partitions) throws Exception {
    if (caughtUp(group)) {
      produceChunk(partitions);
    }
  }

  /**
   * Whether the group's committed offsets are at the end of what was produced, on every partition.
   */
  private boolean caughtUp(String group) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return false; // no member has joined yet
      }
      throw e;
    }
    for (Map.Entry<Integer, Long> e : produced.entrySet()) {
      OffsetAndMetadata c = committed.get(new TopicPartition(topic, e.getKey()));
      if (c == null || c.offset() < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private void awaitCaughtUp(String group, String when) {
    Awaitility.await(when + ": stage 1 commits every source offset produced")
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> caughtUp(group));
  }

  /**
   * The partitions assigned to {@code instance} in {@code group} (its client id ends with {@code
   * /<pid>}).
   */
  private Set<Integer> owned(String group, Process instance) throws Exception {
    Set<Integer> out = new HashSet<>();
    for (MemberDescription m : members(group)) {
      if (m.clientId().matches(".*/" + instance.pid() + "(\\D.*)?")) {
        m.assignment().topicPartitions().forEach(tp -> out.add(tp.partition()));
      }
    }
    return out;
  }

  private int memberCount(String group) throws Exception {
    return members(group).size();
  }

  /** The group's members; none before the group exists. */
  private Collection<MemberDescription> members(String group) throws Exception {
    try {
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      return d.members();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return List.of();
      }
      throw e;
    }
  }

  /**
   * The repartition partitions whose sub-pipeline commits a sink commit holds ({@code txn
   * <pipeline>.<n>@<checkpoint>}).
   */
  private static Set<Integer> subPartitions(TableCommits.Commit commit) {
    Set<Integer> out = new HashSet<>();
    for (var txn : commit.txns()) {
      String appId = txn.appId();
      if (appId.startsWith(PIPELINE + ".") && appId.contains("@")) {
        out.add(Integer.parseInt(appId.substring(PIPELINE.length() + 1, appId.indexOf('@'))));
      }
    }
    return out;
  }

  /** Whether {@code instance} committed windows (data files) of a sub-pipeline to the sink. */
  private static boolean committedWindows(Path sink, Process instance) throws Exception {
    return TableCommits.of(sink).stream()
        .anyMatch(c -> c.by(instance) && c.addedFiles() > 0 && !subPartitions(c).isEmpty());
  }

  private static long latestVersion(Path table) throws Exception {
    List<TableCommits.Commit> commits = TableCommits.of(table);
    return commits.isEmpty() ? -1 : commits.get(commits.size() - 1).version();
  }

  /**
   * Waits until {@code instance} committed windows of every one of {@code partitions} after {@code
   * afterVersion}.
   */
  private void awaitCommitted(
      Path sink, Process instance, Set<Integer> partitions, long afterVersion, String what) {
    Awaitility.await(what)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              produceChunkWhenCaughtUp("tributary-" + PIPELINE, allPartitions());
              Set<Integer> committed = new HashSet<>();
              for (TableCommits.Commit c : TableCommits.of(sink)) {
                if (c.version() > afterVersion && c.by(instance) && c.addedFiles() > 0) {
                  committed.addAll(subPartitions(c));
                }
              }
              return committed.containsAll(partitions);
            });
  }

  /**
   * The windows of what was produced, computed here: first event per (event_id, event_ts), count
   * and sum per 5-minute window and type, the windows that end at or before the final watermark
   * (the maximum event time minus the delay), as {@code start|end|type|count|sum} sorted.
   */
  private List<String> directWindows() {
    Instant max = events.values().stream().map(Event::ts).max(Instant::compareTo).orElseThrow();
    Instant watermark = max.minus(DELAY);
    Map<String, long[]> counts = new TreeMap<>();
    Map<String, BigDecimal> sums = new HashMap<>();
    for (Event e : events.values()) {
      long size = WINDOW.toSeconds();
      Instant start = Instant.ofEpochSecond(Math.floorDiv(e.ts().getEpochSecond(), size) * size);
      Instant end = start.plus(WINDOW);
      if (end.isAfter(watermark)) {
        continue;
      }
      String key = start + "|" + end + "|" + e.type();
      counts.computeIfAbsent(key, k -> new long[1])[0]++;
      sums.merge(key, e.amount(), BigDecimal::add);
    }
    List<String> out = new ArrayList<>();
    counts.forEach(
        (k, c) ->
            out.add(k + "|" + c[0] + "|" + sums.get(k).setScale(2, RoundingMode.UNNECESSARY)));
    return out.stream().sorted().toList();
  }

  /** A sink table's rows as {@code window_start|window_end|event_type|events|amount}, sorted. */
  private static List<String> windows(Path table) throws Exception {
    List<String> out = new ArrayList<>();
    for (Object[] r : rows(table)) {
      out.add(
          instant(r[0])
              + "|"
              + instant(r[1])
              + "|"
              + r[2]
              + "|"
              + ((Number) r[3]).longValue()
              + "|"
              + ((BigDecimal) r[4]).setScale(2, RoundingMode.UNNECESSARY));
    }
    return out.stream().sorted().toList();
  }

  private static Instant instant(Object value) {
    if (value instanceof Instant i) {
      return i;
    }
    long micros = ((Number) value).longValue();
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
  }

  private static List<Object[]> rows(Path table) throws Exception {
    // the table exists once its first commit does (the folder comes a moment before)
    if (!Files.exists(table.resolve("_delta_log/00000000000000000000.json"))) {
      return List.of();
    }
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      return TableContents.rows(store);
    }
  }

  /**
   * The quarantine table holds every malformed record once ({@code _kafka_partition}, {@code
   * _kafka_offset}).
   */
  private void assertQuarantinedOnce(Path table) throws Exception {
    Map<String, Integer> counts = new HashMap<>();
    for (Object[] r : rows(table)) {
      counts.merge(r[1] + "/" + r[2], 1, Integer::sum);
    }
    assertThat(counts.values()).as("no record twice in %s", table).allMatch(c -> c == 1);
    assertThat(counts.keySet()).as("every malformed record in %s", table).isEqualTo(malformed);
  }

  /**
   * Stage 1 wrote every valid source record into the repartition topic exactly once (read
   * committed): a zombie's transaction that went through, or a range read twice, repeats offsets.
   */
  private void assertEverySourceRecordOnceInTheRepartitionTopic(
      StatefulPlan plan, ExchangeRecords exchange) throws Exception {
    List<String> columns = plan.inputSchema().fieldNames();
    int partitionColumn = columns.indexOf("_kafka_partition");
    int offsetColumn = columns.indexOf("_kafka_offset");
    assertThat(partitionColumn)
        .as("the stateful input carries the Kafka partition: %s", columns)
        .isNotNegative();
    assertThat(offsetColumn)
        .as("the stateful input carries the Kafka offset: %s", columns)
        .isNotNegative();
    String repartition = ExchangeRecords.topic(PIPELINE);
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    Map<String, Integer> counts = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
      List<TopicPartition> parts =
          consumer.partitionsFor(repartition).stream()
              .map(i -> new TopicPartition(repartition, i.partition()))
              .toList();
      assertThat(parts)
          .as("the repartition topic has a partition per source partition")
          .hasSize(PARTITIONS);
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin
          .listOffsets(
              parts.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())),
              new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
          .all()
          .get()
          .forEach((tp, info) -> ends.put(tp, info.offset()));
      long deadline = System.nanoTime() + AWAIT.toNanos();
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        assertThat(System.nanoTime())
            .as("the repartition topic read to its end in time")
            .isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (exchange.decode(r.value()) instanceof ExchangeRecords.Row row) {
            Object[] v = row.values();
            counts.merge(v[partitionColumn] + "/" + v[offsetColumn], 1, Integer::sum);
          }
        }
      }
    }
    assertThat(
            counts.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .toList())
        .as("source records in the repartition topic more than once")
        .isEmpty();
    assertThat(counts.keySet())
        .as("every valid source record in the repartition topic")
        .isEqualTo(validOffsets);
  }
}
