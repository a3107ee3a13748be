package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.Assignment;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.Snapshot;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stage 2 of a stateful group-mode pipeline against a real broker and local-disk tables: exchange
 * records (rows of a dedup + tumbling-window append pipeline, and markers) written to the
 * repartition topic in Kafka transactions, one of them aborted; "instances" of {@link
 * PartitionPipelines} in this JVM sharing the checkpoint and the tables, partitions moving between
 * them; the sink equals the direct computation, windows wait for the agreed watermark, and a
 * zombie's double run of a batch leaves one copy.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PartitionPipelinesIT {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final List<String> TYPES =
      List.of("click", "view", "buy", "share", "like", "open");
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private final String id = "pp" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private CompiledPipeline pipeline;
  private StatefulPlan plan;
  private ExchangeRecords exchange;

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closeLast) {
      c.close();
    }
  }

  private void declare(int partitions) throws Exception {
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: %s
        source: { kafka: { bootstrap-servers: "%s", topics: [events] } }
        format: { json: { schema: { event_id: string, event_type: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures: { events: count() }
        output-mode: append
        sink: { delta: { path: %s/sink } }
        quarantine: { delta: { path: %s/quarantine } }
        checkpoint: %s/checkpoint
        """
                .formatted(id, broker.bootstrapServers(), dir, dir, dir),
            id + ".yaml",
            Map.of());
    pipeline = PipelineFactory.compile(spec);
    plan = pipeline.stateful().orElseThrow();
    exchange = new ExchangeRecords(plan, partitions);
    try (Admin admin = broker.admin()) {
      admin
          .createTopics(List.of(new NewTopic(ExchangeRecords.topic(id), partitions, (short) 1)))
          .all()
          .get();
    }
  }

  // ---- stage 1, played by the test: rows and markers in transactions ----

  record Event(String id, String type, Instant ts) {}

  private Object[] row(Event e) {
    List<String> names = plan.inputSchema().fieldNames();
    Object[] row = new Object[names.size()];
    row[names.indexOf("event_id")] = e.id();
    row[names.indexOf("event_type")] = e.type();
    row[names.indexOf("event_ts")] = e.ts();
    return row;
  }

  private KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tributary-" + id + "-" + UUID.randomUUID());
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
    producer.initTransactions();
    closeLast.add(0, producer);
    return producer;
  }

  /**
   * One stage-1 batch: its rows, then markers with its max event time to {@code markerPartitions}
   * (every partition in stage 1; fewer to hold a partition without a watermark), committed or
   * aborted.
   */
  private void transaction(
      KafkaProducer<byte[], byte[]> producer,
      List<Event> events,
      Set<Integer> markerPartitions,
      boolean commit) {
    producer.beginTransaction();
    String topic = ExchangeRecords.topic(id);
    for (Event e : events) {
      ExchangeRecords.Outgoing out = exchange.row(row(e));
      producer.send(new ProducerRecord<>(topic, out.partition(), out.key(), out.value()));
    }
    long max =
        events.stream().mapToLong(e -> e.ts().getEpochSecond() * 1_000_000L).max().orElseThrow();
    for (ExchangeRecords.Outgoing m : exchange.markers(max)) {
      if (markerPartitions.contains(m.partition())) {
        producer.send(new ProducerRecord<>(topic, m.partition(), m.key(), m.value()));
      }
    }
    if (commit) {
      producer.commitTransaction();
    } else {
      producer.flush();
      producer.abortTransaction();
    }
  }

  /**
   * Chunk i's events lie in minutes [2i, 2i + 3) with re-sent duplicates: the watermark after chunk
   * i-1 is at most 2i + 3 - 10, so no event is ever late and the direct computation needs no rule
   * for it.
   */
  private static List<Event> chunk(int i, int size) {
    List<Event> out = new ArrayList<>();
    for (int k = 0; k < size; k++) {
      int n = i * size + k;
      Event e =
          new Event(
              "e" + n,
              TYPES.get((n * 7) % TYPES.size()),
              T0.plusSeconds(120L * i + (n * 37L) % 180));
      out.add(e);
      if (n % 5 == 0) {
        out.add(e); // a re-sent record: deduplicated
      }
    }
    return out;
  }

  /** The windows the pipeline emits once everything is read: end <= max(event time) - delay. */
  private static Map<List<Object>, Long> expected(List<Event> events) {
    Map<String, Event> distinct = new HashMap<>();
    events.forEach(e -> distinct.putIfAbsent(e.id(), e));
    long maxSec = events.stream().mapToLong(e -> e.ts().getEpochSecond()).max().orElseThrow();
    long watermark = maxSec - 600;
    Map<List<Object>, Long> out = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    for (Event e : distinct.values()) {
      long start = e.ts().getEpochSecond() - Math.floorMod(e.ts().getEpochSecond(), 300);
      if (start + 300 <= watermark) {
        out.merge(
            List.of(Instant.ofEpochSecond(start), Instant.ofEpochSecond(start + 300), e.type()),
            1L,
            Long::sum);
      }
    }
    return out;
  }

  private Map<List<Object>, Long> sinkWindows() throws IOException {
    Map<List<Object>, Long> out = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    try (ObjectStore store = ObjectStores.open(dir.resolve("sink").toString(), null)) {
      if (!store.list("_delta_log/").isEmpty()) {
        for (Object[] r : TableContents.rows(store)) {
          Long previous = out.put(List.of(r[0], r[1], r[2]), ((Number) r[3]).longValue());
          assertThat(previous).as("window %s written twice", List.of(r[0], r[1], r[2])).isNull();
        }
      }
    }
    return out;
  }

  // ---- the instances ----

  /** One instance: its own stores, tables, Kafka consumer and state directory, as a process has. */
  private final class Instance implements AutoCloseable {
    final PartitionPipelines pipelines;
    final List<AutoCloseable> resources = new ArrayList<>();
    private Thread thread;
    private final AtomicBoolean stop = new AtomicBoolean();
    volatile Throwable failure;

    /** After each round on the instance's thread (the Kafka source is the thread's alone). */
    volatile boolean settled;

    Instance(String name, Assignment assignment, SinkWrapper wrap) throws IOException {
      this(name, assignment, wrap, Optional.empty());
    }

    Instance(String name, Assignment assignment, SinkWrapper wrap, Optional<Duration> idleTimeout)
        throws IOException {
      ObjectStore checkpoint = ObjectStores.open(dir.resolve("checkpoint").toString(), null);
      ObjectStore sinkStore = ObjectStores.open(dir.resolve("sink").toString(), null);
      ObjectStore quarantineStore = ObjectStores.open(dir.resolve("quarantine").toString(), null);
      resources.addAll(List.of(checkpoint, sinkStore, quarantineStore));
      TableSink sink = wrap.wrap(PipelineFactory.modeSink(pipeline, sinkStore));
      TableSink quarantine = PipelineFactory.quarantine(pipeline.spec(), quarantineStore);
      KafkaSource source =
          new KafkaSource(
              PartitionPipelines.repartitionSettings(
                  id,
                  broker.bootstrapServers(),
                  Map.of("session.timeout.ms", "6000", "heartbeat.interval.ms", "1000"),
                  KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(30)),
                  assignment));
      pipelines =
          new PartitionPipelines(
              new PartitionPipelines.Settings(
                  id,
                  pipeline.spec().checkpointIdentity(),
                  (part, recorded, declared) -> false,
                  dir.resolve("state-" + name),
                  Optional.empty(),
                  idleTimeout),
              source,
              checkpoint,
              PartitionPipelines.statefulProcessors(id, plan, exchange),
              sink,
              quarantine,
              Optional.empty(),
              new ProgressLog(100),
              Clock.systemUTC());
    }

    /** Runs rounds on a thread of its own (a group member must keep polling) until closed. */
    Instance start() {
      thread =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    pipelines.runRound();
                    settled = pipelines.allSettled(pipelines.endOffsets());
                    Thread.sleep(50);
                  }
                } catch (Throwable t) {
                  failure = t;
                }
              },
              "instance");
      thread.start();
      return this;
    }

    /** Whether stage 2 is done, asked on the caller's thread (no round running). */
    boolean settledNow() throws IOException {
      return pipelines.allSettled(pipelines.endOffsets());
    }

    @Override
    public void close() throws Exception {
      stop.set(true);
      if (thread != null) {
        thread.join(60_000);
      }
      pipelines.close();
      for (AutoCloseable c : resources) {
        c.close();
      }
      if (failure != null) {
        throw new AssertionError("instance failed", failure);
      }
    }
  }

  interface SinkWrapper {
    TableSink wrap(TableSink sink);
  }

  @Test
  void twoInstancesShareThePartitionsAPartitionMovesAndTheSinkEqualsTheDirectComputation()
      throws Exception {
    declare(4);
    KafkaProducer<byte[], byte[]> producer = producer();
    List<Event> events = new ArrayList<>();
    Set<Integer> all = Set.of(0, 1, 2, 3);
    // Phase 1: rows and markers reach partitions 0..2 only: partition 3 records the epoch as its
    // watermark (its first batch reads nothing), so no window is emitted anywhere.
    for (int i = 0; i < 10; i++) {
      List<Event> c = chunk(i, 20);
      c.removeIf(e -> exchange.row(row(e)).partition() == 3);
      events.addAll(c);
      transaction(producer, c, Set.of(0, 1, 2), true);
    }
    Instance a = new Instance("a", Assignment.GROUP, s -> s);
    closeLast.add(0, a);
    for (int round = 0; round < 3; round++) {
      a.pipelines.runRound(); // alone in the group: every partition, rounds on this thread
    }
    assertThat(a.pipelines.ownedPartitions()).containsExactly(0, 1, 2, 3);
    assertThat(a.pipelines.facts()).allSatisfy(f -> assertThat(f.committed()).isTrue());
    // partitions 0..2 saw minute ~21 (watermark ~11): with its own watermark each would have
    // emitted the windows ending at minutes 5 and 10; partition 3 holds the agreed one at the epoch
    assertThat(expected(events)).isNotEmpty();
    assertThat(sinkWindows()).isEmpty();

    // Phase 2: A runs on, B joins, more transactions (one aborted), then A leaves and B takes over.
    a.start();
    Instance b = new Instance("b", Assignment.GROUP, s -> s).start();
    closeLast.add(0, b);
    for (int i = 10; i < 20; i++) {
      List<Event> c = chunk(i, 20);
      events.addAll(c);
      transaction(producer, c, all, true);
      if (i == 12) {
        List<Event> ghost =
            List.of(
                new Event("ghost-1", "ghost", T0.plusSeconds(6000 * 60)),
                new Event("ghost-2", "click", T0.plusSeconds(30 * 60)));
        transaction(producer, ghost, all, false); // never read: neither its rows nor its markers
      }
    }
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                !b.pipelines.ownedPartitions().isEmpty()
                    && !a.pipelines.ownedPartitions().isEmpty()
                    && a.failure == null
                    && b.failure == null);
    List<Event> last = chunk(20, 20);
    events.addAll(last);
    transaction(producer, last, all, true);

    a.close(); // leaves the group: B gets A's partitions and opens them from their checkpoints
    closeLast.remove(a);
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              assertThat(b.failure).isNull();
              return b.pipelines.ownedPartitions().size() == 4 && b.settled;
            });
    Map<List<Object>, Long> expected = expected(events);
    assertThat(expected).isNotEmpty();
    assertThat(sinkWindows()).isEqualTo(expected);
    assertThat(sinkWindows().keySet()).noneMatch(k -> k.get(2).equals("ghost"));
    long maxMicros =
        events.stream().mapToLong(e -> e.ts().getEpochSecond() * 1_000_000L).max().orElseThrow();
    assertThat(b.pipelines.agreedWatermark()).hasValue(maxMicros - 600_000_000L);
  }

  @Test
  void withAnIdleTimeoutAPartitionWithoutInputStopsHoldingTheAgreedWatermark() throws Exception {
    declare(4);
    KafkaProducer<byte[], byte[]> producer = producer();
    List<Event> events = new ArrayList<>();
    // As in phase 1 above: partition 3 gets nothing, which without a timeout holds the agreed
    // watermark at the epoch forever.
    for (int i = 0; i < 10; i++) {
      List<Event> c = chunk(i, 20);
      c.removeIf(e -> exchange.row(row(e)).partition() == 3);
      events.addAll(c);
      transaction(producer, c, Set.of(0, 1, 2), true);
    }
    Instance a = new Instance("a", Assignment.GROUP, s -> s, Optional.of(Duration.ofSeconds(3)));
    closeLast.add(0, a);
    for (int round = 0; round < 3; round++) {
      a.pipelines.runRound();
    }
    assertThat(a.pipelines.ownedPartitions()).containsExactly(0, 1, 2, 3);
    assertThat(sinkWindows()).isEmpty(); // not idle long enough yet: held at the epoch
    // Partitions 0..2 committed their input; partition 3 committed nothing with input. Once the
    // timeout has passed (the others keep their earlier input time too: every partition is idle
    // then, and none is left out), new input on 0..2 makes them active while 3 stays idle.
    Awaitility.await().pollDelay(Duration.ofSeconds(4)).until(() -> true);
    List<Event> more = chunk(10, 20);
    more.removeIf(e -> exchange.row(row(e)).partition() == 3);
    events.addAll(more);
    transaction(producer, more, Set.of(0, 1, 2), true);
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              a.pipelines.runRound();
              return !sinkWindows().isEmpty();
            });
    assertThat(a.pipelines.agreedWatermark()).isPresent();
    assertThat(a.pipelines.agreedWatermark().getAsLong()).isGreaterThan(0);
    Map<List<Object>, Long> expected = expected(events);
    assertThat(expected).containsAllEntriesOf(sinkWindows());
  }

  @Test
  void aZombieRunningTheSameBatchFromTheSameCheckpointLeavesOneCopy() throws Exception {
    declare(1);
    KafkaProducer<byte[], byte[]> producer = producer();
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      List<Event> c = chunk(i, 10);
      events.addAll(c);
      transaction(producer, c, Set.of(0), true);
    }
    // The first owner reads everything (batch 0, nothing emitted yet: no agreed watermark), then
    // dies while committing batch 1, the no-data batch that emits the windows: it is planned, not
    // committed.
    Instance first =
        new Instance("first", Assignment.EXCLUSIVE, s -> new CommitWrapper(s, null, true));
    first.pipelines.runRound();
    assertThatThrownBy(first.pipelines::runRound).hasRootCauseMessage("the first owner dies here");
    first.close();
    assertThat(sinkWindows()).isEmpty();

    // Two instances (the new owner and a zombie) replay batch 1 from the same entry at once: both
    // process it and reach the sink commit together.
    CyclicBarrier together = new CyclicBarrier(2);
    Instance owner =
        new Instance("owner", Assignment.EXCLUSIVE, s -> new CommitWrapper(s, together, false));
    Instance zombie =
        new Instance("zombie", Assignment.EXCLUSIVE, s -> new CommitWrapper(s, together, false));
    closeLast.add(0, owner);
    closeLast.add(0, zombie);
    Thread t =
        new Thread(
            () -> {
              try {
                zombie.pipelines.runRound();
              } catch (Throwable e) {
                zombie.failure = e;
              }
            });
    t.start();
    owner.pipelines
        .runRound(); // one of the two loses the commits entry: logged, reopened next round
    t.join(60_000);
    assertThat(zombie.failure).isNull();
    assertThat(together.isBroken()).isFalse();
    assertThat(sinkWindows()).isEqualTo(expected(events)).isNotEmpty();
    owner.pipelines.runRound();
    zombie.pipelines.runRound();
    assertThat(sinkWindows()).isEqualTo(expected(events));
    assertThat(owner.settledNow()).isTrue();
  }

  /** The sink's commits of batches with rows wait at a barrier, or fail (a crash), as told. */
  private record CommitWrapper(TableSink sink, CyclicBarrier barrier, boolean fail)
      implements TableSink {
    @Override
    public String location() {
      return sink.location();
    }

    @Override
    public CommitCounters commitCounters() {
      return sink.commitCounters();
    }

    @Override
    public Snapshot snapshot() throws IOException {
      return sink.snapshot();
    }

    @Override
    public BatchWriter begin(BatchTag tag) throws IOException {
      BatchWriter writer = sink.begin(tag);
      return new BatchWriter() {
        @Override
        public boolean alreadyCommitted() {
          return writer.alreadyCommitted();
        }

        @Override
        public void write(Object[] row) throws IOException {
          writer.write(row);
        }

        @Override
        public long rows() {
          return writer.rows();
        }

        @Override
        public long commit(Map<String, String> commitInfo) throws IOException {
          if (writer.rows() > 0 && fail) {
            throw new IOException("the first owner dies here");
          }
          if (writer.rows() > 0 && barrier != null && !barrier.isBroken()) {
            try {
              barrier.await(60, TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new IOException("the other writer did not come", e);
            }
          }
          return writer.commit(commitInfo);
        }

        @Override
        public void close() {
          writer.close();
        }
      };
    }
  }
}
