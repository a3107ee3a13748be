package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.Assignment;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.QuarantineLimit;
import dev.tributary.config.StartingOffsets;
import dev.tributary.service.engine.BatchBody;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.PartitionMovedException;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.QuarantineLimitExceededException;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.engine.TriggerLoop;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.service.stateful.ExchangeFront;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stage 1 against a real broker: rows of the source topic reach the repartition topic exactly once
 * (as a {@code read_committed} reader sees it), each in its key's partition, with progress records
 * in every partition; a writer killed before its Kafka commit leaves nothing visible and the next
 * owner redoes its batch; a zombie that lost its partitions is fenced off by the group generation;
 * a re-run after the quarantine commit quarantines nothing twice.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ExchangeWriterIT {
  private static final int SOURCE_PARTITIONS = 4;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  @TempDir Path dir;
  private String pipeline;
  private String sourceTopic;

  @AfterEach
  void closeAll() throws Exception {
    threads.shutdownNow();
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  @Test
  void rowsArriveOnceEachInItsKeysPartitionWithProgressInEveryPartition() throws Exception {
    setUp();
    produce(0, 200, 0);
    Instance a = new Instance(Map.of());
    Map<TopicPartition, Long> ceiling = ceiling(a);
    drain(a, ceiling);

    List<ConsumerRecord<byte[], byte[]>> out = readCommitted();
    assertThat(ids(a, out)).containsExactlyInAnyOrderElementsOf(range(0, 200));
    Map<String, Set<Integer>> partitionsOfKey = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : out) {
      if (a.records.decode(r.value()) instanceof ExchangeRecords.Row row) {
        assertThat(r.partition())
            .isEqualTo(Utils.toPositive(Utils.murmur2(r.key())) % a.records.partitions());
        partitionsOfKey
            .computeIfAbsent((String) row.values()[1], k -> new HashSet<>())
            .add(r.partition());
      }
    }
    assertThat(partitionsOfKey).hasSize(10).allSatisfy((k, ps) -> assertThat(ps).as(k).hasSize(1));
    assertThat(partitionsOfKey.values().stream().flatMap(Set::stream).distinct().count())
        .isGreaterThan(1);
    // every partition has progress records; the latest carries the stream's maximum event time
    // and shows every source partition read to the end of the run
    Map<Integer, ExchangeRecords.Progress> lastProgress = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : out) {
      if (a.records.decode(r.value()) instanceof ExchangeRecords.Progress p) {
        lastProgress.put(r.partition(), p);
      }
    }
    assertThat(lastProgress)
        .hasSize(a.records.partitions())
        .allSatisfy(
            (n, p) -> {
              assertThat(p.eventTimeMicros()).as("partition %d", n).hasValue(eventTimeMicros(199));
              Map<TopicPartition, Long> readTo = new HashMap<>();
              for (ExchangeRecords.SourcePosition sp : p.partitions()) {
                assertThat(sp.latest()).isEqualTo(ceiling.get(tp(sp)));
                if (sp.readTo() >= 0) {
                  readTo.put(tp(sp), sp.readTo());
                }
              }
              assertThat(p.partitions()).hasSize(ceiling.size());
              assertThat(readTo).isNotEmpty();
              readTo.forEach((tp, to) -> assertThat(to).isEqualTo(ceiling.get(tp)));
            });
    assertThat(a.allPartitionsAtCeiling(ceiling)).isTrue();
    List<BatchProgress> batches = a.progress.last(100);
    assertThat(batches).isNotEmpty().allSatisfy(b -> assertThat(b.pipeline()).isEqualTo(pipeline));
    assertThat(batches.stream().mapToLong(BatchProgress::inputRows).sum()).isEqualTo(200);
    assertThat(batches.stream().mapToLong(BatchProgress::outputRows).sum()).isEqualTo(200);
    // nothing more to do: no transaction at all
    Outcome idle = a.runBatch(ceiling);
    assertThat(idle.committed()).isFalse();
    assertThat(idle.readAnything()).isFalse();
    assertThat(idle.atCeiling()).isTrue();
  }

  @Test
  void aWriterKilledBeforeItsKafkaCommitLeavesNothingVisibleAndTheNextOwnerRedoesTheBatch()
      throws Exception {
    setUp();
    produce(0, 120, 0);
    Map<String, String> shortTransactions = Map.of("transaction.timeout.ms", "3000");
    Instance killed = new Instance(shortTransactions);
    Map<TopicPartition, Long> ceiling = ceiling(killed);
    killed.kill.at =
        "commitTransaction"; // after its rows and offsets were sent: offsets pending in the group
    assertThatThrownBy(() -> killed.runBatch(ceiling)).isInstanceOf(Killed.class);
    killed.close(); // its open transaction stays open at the coordinator until it times out

    Instance next = new Instance(shortTransactions);
    drain(next, ceiling);

    assertThat(ids(next, readCommitted())).containsExactlyInAnyOrderElementsOf(range(0, 120));
    assertThat(rowCount(next, read("read_uncommitted")))
        .as("the killed writer's rows are in the log, aborted")
        .isGreaterThanOrEqualTo(240);
  }

  @Test
  void aZombieThatLostItsPartitionsIsFencedOffByTheGroupGeneration() throws Exception {
    setUp();
    produce(0, 100, 0);
    // a long transaction timeout: the zombie must be fenced by the group, not by its transaction
    // expiring
    Map<String, String> props =
        Map.of("max.poll.interval.ms", "4000", "transaction.timeout.ms", "120000");
    Instance zombie = new Instance(props);
    drain(zombie, ceiling(zombie));
    produce(100, 200, 0);
    Map<TopicPartition, Long> ceiling = ceiling(zombie);

    // the zombie reads its batch, then freezes before it commits (a GC pause, SIGSTOP): no poll
    zombie.kill.blockAt = "sendOffsetsToTransaction";
    Future<Outcome> frozen = threads.submit(() -> zombie.runBatch(ceiling));
    assertThat(zombie.kill.reached.await(60, TimeUnit.SECONDS)).isTrue();

    // past its max.poll.interval the group drops it; the new member gets every partition and
    // commits
    Instance owner = new Instance(props);
    drain(owner, ceiling);

    zombie.kill.release.countDown();
    Outcome outcome = frozen.get(60, TimeUnit.SECONDS);
    assertThat(ids(owner, readCommitted())).containsExactlyInAnyOrderElementsOf(range(0, 200));
    assertThat(outcome.wasFenced()).as("the zombie's commit").isTrue();
    assertThat(outcome.committed()).isFalse();
    assertThat(zombie.fencedBatches).isEqualTo(1);
  }

  @Test
  void aReRunAfterTheQuarantineCommitQuarantinesNothingTwice() throws Exception {
    setUp();
    produce(0, 60, 5); // every fifth record is not JSON
    Map<String, String> props = Map.of("transaction.timeout.ms", "3000");
    Instance killed = new Instance(props);
    Map<TopicPartition, Long> ceiling = ceiling(killed);
    killed.kill.at = "sendOffsetsToTransaction"; // the quarantine table is committed, Kafka is not
    assertThatThrownBy(() -> killed.runBatch(ceiling)).isInstanceOf(Killed.class);
    killed.close();
    List<Object[]> firstAttempt = quarantined();
    assertThat(firstAttempt).hasSize(12);

    Instance next = new Instance(props);
    drain(next, ceiling);

    List<Object[]> rows = quarantined();
    assertThat(rows)
        .extracting(r -> r[1] + "/" + r[2])
        .as("every bad record once")
        .doesNotHaveDuplicates()
        .hasSize(12);
    assertThat(ids(next, readCommitted()))
        .containsExactlyInAnyOrderElementsOf(
            range(0, 60).stream().filter(i -> i % 5 != 0).toList());
  }

  @Test
  void aBatchOverTheQuarantineLimitFailsBeforeAnyCommit() throws Exception {
    setUp();
    produce(0, 40, 5); // a fifth of the records is not JSON
    Instance limited =
        new Instance(
            Map.of(), new StartingOffsets.Earliest(), Optional.of(new QuarantineLimit(0.1)));
    Map<TopicPartition, Long> ceiling = ceiling(limited);
    assertThatThrownBy(() -> limited.runBatch(ceiling))
        .isInstanceOf(QuarantineLimitExceededException.class);

    assertThat(quarantined()).isEmpty();
    assertThat(limited.source.group().committedOffsets(ceiling.keySet())).isEmpty();
    assertThat(readCommitted()).isEmpty();
  }

  @Test
  void aPartitionWithoutAGroupOffsetIsPinnedWhereItStartsEvenWithNothingToRead() throws Exception {
    setUp();
    produce(0, 40, 0); // before the pipeline starts: "latest" skips them
    Instance first = new Instance(Map.of(), new StartingOffsets.Latest());
    Map<TopicPartition, Long> before = ceiling(first);
    Outcome pinned = first.runBatch(Map.of());
    assertThat(pinned.readAnything()).isFalse();
    assertThat(pinned.committed())
        .as("an empty transaction carrying the starting offsets")
        .isTrue();
    assertThat(first.source.group().committedOffsets(before.keySet())).isEqualTo(before);
    first.close();

    produce(40, 80, 0);
    Instance next = new Instance(Map.of(), new StartingOffsets.Latest());
    drain(next, ceiling(next));
    assertThat(ids(next, readCommitted()))
        .as("the next owner starts where the first pinned, not at a new latest")
        .containsExactlyInAnyOrderElementsOf(range(40, 80));
  }

  // ---------------------------------------------------------------------------------------------

  private void setUp() {
    pipeline = "ex-" + UUID.randomUUID().toString().substring(0, 8);
    sourceTopic = broker.createTopic("exchange-source", SOURCE_PARTITIONS);
  }

  private PipelineSpec spec() {
    return PipelineParser.parse(
        """
        pipeline: %s
        source: { kafka: { bootstrap-servers: "%s", topics: [%s] } }
        format: { json: { schema: { id: long, k: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 1 hour }
          group-by: [k]
          measures: { n: count() }
        output-mode: append
        sink: { delta: { path: %s/out } }
        quarantine: { delta: { path: %s/quarantine } }
        checkpoint: %s/checkpoint
        """
            .formatted(pipeline, broker.bootstrapServers(), sourceTopic, dir, dir, dir),
        pipeline + ".yaml",
        Map.of());
  }

  /**
   * Record {@code i} (of ids {@code [from, to)}) goes to partition {@code i % 4}; every {@code
   * bad}-th is not JSON.
   */
  private void produce(int from, int to, int bad) {
    for (int p = 0; p < SOURCE_PARTITIONS; p++) {
      int partition = p;
      broker.send(
          sourceTopic,
          p,
          IntStream.range(from, to)
              .filter(i -> i % SOURCE_PARTITIONS == partition)
              .mapToObj(
                  i ->
                      bad > 0 && i % bad == 0
                          ? "not json " + i
                          : "{\"id\":"
                              + i
                              + ",\"k\":\"k"
                              + (i % 10)
                              + "\",\"event_ts\":\""
                              + eventTime(i)
                              + "\"}")
              .toList());
    }
  }

  private static String eventTime(int i) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i).toString();
  }

  private static long eventTimeMicros(int i) {
    return Instant.parse(eventTime(i)).toEpochMilli() * 1000;
  }

  private static List<Integer> range(int from, int to) {
    return IntStream.range(from, to).boxed().toList();
  }

  private static Map<TopicPartition, Long> ceiling(Instance i) {
    return i.source.latestOffsets(i.source.partitions());
  }

  /** Runs batches until every source partition's group offset is at the ceiling. */
  private static void drain(Instance i, Map<TopicPartition, Long> ceiling) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              i.runBatch(ceiling);
              return i.allPartitionsAtCeiling(ceiling);
            });
  }

  private List<ConsumerRecord<byte[], byte[]>> readCommitted() {
    return read("read_committed");
  }

  /**
   * Every record of the repartition topic a reader of {@code isolation} sees, up to the end it
   * sees.
   */
  private List<ConsumerRecord<byte[], byte[]>> read(String isolation) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      String topic = ExchangeRecords.topic(pipeline);
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // The end of each partition's log; a read_committed reader gets there once no transaction is
      // open any more (an abandoned one is aborted by the coordinator after its timeout, which
      // appends its abort marker: the log's end moves too).
      Map<TopicPartition, Long> end = new HashMap<>();
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                end.clear();
                end.putAll(logEnds(partitions));
                return consumer.endOffsets(partitions, Duration.ofSeconds(30)).equals(end);
              });
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(out::add);
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
              });
    }
    return out;
  }

  private Map<TopicPartition, Long> logEnds(List<TopicPartition> partitions) throws Exception {
    try (Admin admin = broker.admin()) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
      Map<TopicPartition, Long> out = new HashMap<>();
      admin
          .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> out.put(tp, info.offset()));
      return out;
    }
  }

  private static List<Integer> ids(Instance i, List<ConsumerRecord<byte[], byte[]>> records) {
    return records.stream()
        .map(r -> i.records.decode(r.value()))
        .filter(d -> d instanceof ExchangeRecords.Row)
        .map(d -> ((Long) ((ExchangeRecords.Row) d).values()[0]).intValue())
        .collect(Collectors.toList());
  }

  private static long rowCount(Instance i, List<ConsumerRecord<byte[], byte[]>> records) {
    return ids(i, records).size();
  }

  private List<Object[]> quarantined() throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      return TableContents.rows(store);
    }
  }

  /**
   * What one stage-1 batch did.
   *
   * @param committed whether a Kafka transaction (rows, markers, offsets) was committed
   * @param readAnything whether any planned range was not empty
   * @param atCeiling whether every assigned partition's range ends at or past its ceiling
   * @param wasFenced whether the batch was dropped because this instance was fenced off
   */
  record Outcome(boolean committed, boolean readAnything, boolean atCeiling, boolean wasFenced) {}

  /** A test's way to make a writer die (or freeze) at one producer call. */
  static final class Kill {
    /** The producer method at which the process dies: it and every later call do nothing more. */
    volatile String at;

    /** The producer method at which the process freezes until {@link #release}. */
    volatile String blockAt;

    volatile boolean dead;
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
  }

  /** What a killed process "throws": nothing after it runs. */
  static final class Killed extends Error {
    Killed() {
      super("killed (test)");
    }
  }

  /**
   * A real producer that can be killed: from the kill on, nothing reaches the broker any more (no
   * abort, no end of transaction), and closing it drops what it buffered, as a SIGKILL would.
   */
  @SuppressWarnings("unchecked")
  private static Producer<byte[], byte[]> killable(Producer<byte[], byte[]> real, Kill kill) {
    return (Producer<byte[], byte[]>)
        Proxy.newProxyInstance(
            ExchangeWriterIT.class.getClassLoader(),
            new Class<?>[] {Producer.class},
            (proxy, method, args) -> {
              String name = method.getName();
              if (kill.dead) {
                if (name.equals("close")) {
                  real.close(Duration.ZERO);
                  return null;
                }
                if (name.equals("abortTransaction")) {
                  return null;
                }
                throw new Killed();
              }
              if (name.equals(kill.blockAt)) {
                kill.reached.countDown();
                kill.release.await(120, TimeUnit.SECONDS);
              }
              if (name.equals(kill.at)) {
                real.flush(); // what it sent is in the log
                kill.dead = true;
                throw new Killed();
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * One instance of the pipeline's stage 1: its own source (a group member), front, producer and
   * quarantine sink.
   */
  private final class Instance implements AutoCloseable {
    final Kill kill = new Kill();
    final KafkaSource source;
    final ExchangeFront front;
    final ExchangeRecords records;
    final ExchangeProgress model;
    final TriggerLoop.Batches engine;
    int fencedBatches;
    final ProgressLog progress = new ProgressLog(100);
    private final ObjectStore quarantineStore;
    private boolean closed;

    Instance(Map<String, String> extraProperties) throws Exception {
      this(extraProperties, new StartingOffsets.Earliest());
    }

    Instance(Map<String, String> extraProperties, StartingOffsets startingOffsets)
        throws Exception {
      this(extraProperties, startingOffsets, Optional.empty());
    }

    Instance(
        Map<String, String> extraProperties,
        StartingOffsets startingOffsets,
        Optional<QuarantineLimit> quarantineLimit)
        throws Exception {
      PipelineSpec spec = spec();
      CompiledPipeline compiled = PipelineFactory.compile(spec);
      Map<String, String> properties =
          new HashMap<>(Map.of("session.timeout.ms", "6000", "heartbeat.interval.ms", "1000"));
      properties.putAll(extraProperties);
      KafkaSourceSettings settings =
          new KafkaSourceSettings(
              pipeline,
              broker.bootstrapServers(),
              List.of(sourceTopic),
              Optional.empty(),
              startingOffsets,
              OptionalLong.empty(),
              true,
              properties,
              KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)),
              Assignment.GROUP);
      source = new KafkaSource(settings);
      front =
          new ExchangeFront(
              pipeline, compiled.processor(), compiled.stateful().orElseThrow(), false);
      int partitions;
      try (Admin admin = broker.admin()) {
        partitions =
            ExchangeTopic.ensure(
                admin,
                ExchangeRecords.topic(pipeline),
                ExchangeTopic.partitionsFor(source.partitions()));
      }
      records = new ExchangeRecords(compiled.stateful().orElseThrow(), partitions);
      quarantineStore =
          ObjectStores.open(Files.createDirectories(dir.resolve("quarantine")).toString(), null);
      DeltaTableSink quarantine = PipelineFactory.quarantine(spec, quarantineStore);
      model =
          new ExchangeProgress(
              source,
              front,
              records,
              () -> killable(new KafkaProducer<>(ExchangeProgress.producerConfig(settings)), kill),
              quarantine,
              new TableTxns(pipeline, Optional.empty()));
      engine =
          new TriggerLoop.Batches(
              model,
              new BatchBody(
                  new BatchBody.Settings(
                      pipeline, source, front, progress, Clock.systemUTC(), quarantineLimit)));
      closing.add(this);
    }

    /**
     * One stage-1 batch over the partitions assigned now, as the trigger loop runs it; a fenced
     * batch is dropped (counted here, as the loop counts it).
     */
    Outcome runBatch(Map<TopicPartition, Long> ceiling) throws Exception {
      model.bound(ceiling);
      try {
        boolean committed = engine.step();
        return new Outcome(
            committed, model.lastPlanReadAnything(), model.lastPlanAtCeiling(), false);
      } catch (PartitionMovedException e) {
        fencedBatches++;
        return new Outcome(false, model.lastPlanReadAnything(), model.lastPlanAtCeiling(), true);
      }
    }

    boolean allPartitionsAtCeiling(Map<TopicPartition, Long> ceiling) {
      model.bound(ceiling);
      return model.allPartitionsAtCeiling();
    }

    @Override
    public void close() throws Exception {
      if (closed) {
        return;
      }
      closed = true;
      model.close();
      source.close();
      front.close();
      quarantineStore.close();
    }
  }

  private static TopicPartition tp(ExchangeRecords.SourcePosition p) {
    return new TopicPartition(p.topic(), p.partition());
  }
}
