package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.tributary.storage.S3Settings;
import dev.tributary.storage.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backfills into a new table against a real broker (events with Kafka timestamps of their own, some
 * reaching the broker late) and local-disk or S3 tables: the table holds exactly the rows of the
 * range, computed as the query computes them; the live checkpoint and table are untouched; a rerun
 * adds nothing; a table the backfill did not write is refused.
 */
class BackfillIT {
  /**
   * The events' first hour: recent, since the broker deletes records whose timestamps are older
   * than its retention (7 days).
   */
  private static final Instant DAY =
      Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));

  private static final BackfillRange RANGE =
      new BackfillRange(DAY.plus(Duration.ofMinutes(90)), DAY.plus(Duration.ofHours(4)));
  private static final int EVENTS = 600; // one every 30 s over 5 hours

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  /** Event i: at DAY + 30 s * i, in partition i % 2, kind k(i % 3), amount i. */
  private static Instant eventTime(int i) {
    return DAY.plusSeconds(30L * i);
  }

  /**
   * Sends the events in time order; every seventh reaches the broker 5 minutes after its event time
   * (within the 10-minute watermark delay). Two records out of every range: a malformed one and one
   * whose event time is a month before, both with Kafka timestamps inside the range.
   */
  private void produce(String topic) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < EVENTS; i++) {
        Instant t = eventTime(i);
        Instant arrival = i % 7 == 0 ? t.plus(Duration.ofMinutes(5)) : t;
        send(producer, topic, i % 2, arrival, event(i, t));
        if (i == 300) {
          send(producer, topic, 0, arrival, "{\"id\": \"not-a-number\"}");
          send(producer, topic, 1, arrival, event(100_000, DAY.minus(Duration.ofDays(30))));
        }
      }
      producer.flush();
    }
  }

  private static String event(int id, Instant t) {
    return "{\"id\":%d,\"kind\":\"k%d\",\"event_ts\":\"%s\",\"amount\":%d}"
        .formatted(id, id % 3, t, id);
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, int partition, Instant at, String value)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                topic, partition, at.toEpochMilli(), null, value.getBytes(StandardCharsets.UTF_8)))
        .get();
  }

  private PipelineSpec spec(String topic, String query, String tables, String storage) {
    String yaml =
        """
        pipeline: clicks
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 100
        format:
          json:
            schema: { id: long, kind: string, event_ts: timestamp, amount: long }
        %s
        sink:
          delta: { path: %s/live }
        checkpoint: %s/checkpoints/live
        trigger: { processing-time: 100ms }
        %s
        """
            .formatted(broker.bootstrapServers(), topic, query, tables, tables, storage);
    return PipelineParser.parse(yaml, "clicks.yaml", Map.of());
  }

  @Test
  void statelessBackfillHoldsExactlyTheRangesEventsAndLeavesTheLivePipelineAlone()
      throws Exception {
    String topic = broker.createTopic("backfill-stateless", 2);
    produce(topic);
    PipelineSpec live =
        spec(
            topic,
            """
            transform:
              - derive: { amount_x10: "amount * 10" }
            watermark: { column: event_ts, delay: 10 minutes }""",
            dir.toString(),
            "");
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(live), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
    List<Path> liveCheckpoint = files(dir.resolve("checkpoints/live"));
    long liveVersion = snapshotVersion(dir.resolve("live"));

    String into = dir.resolve("fixed").toString();
    BackfillPlan plan = BackfillPlan.into(live, RANGE, into);
    BackfillSummary first = Backfill.into(plan, new ProgressLog(100), r -> {});

    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      if (RANGE.contains(eventTime(i))) {
        expected.add((long) i);
      }
    }
    assertThat(expected).hasSize(300); // 1:30 h to 4 h, one every 30 s
    assertThat(TableContents.ids(dir.resolve("fixed"))).isEqualTo(expected);
    for (Object[] row : rows(into, null)) {
      assertThat(row[4]).isEqualTo((Long) row[0] * 10); // the query's own derive
    }
    assertThat(first.rowsAdded()).isEqualTo(300);
    assertThat(first.rowsOutside()).isPositive(); // read for the delay, not written
    assertThat(first.resumed()).isFalse();
    // the malformed record went to the backfill's quarantine, not the live one
    assertThat(rows(into + "-quarantine", null)).hasSize(1);
    // the live pipeline's checkpoint and table: untouched
    assertThat(files(dir.resolve("checkpoints/live"))).isEqualTo(liveCheckpoint);
    assertThat(snapshotVersion(dir.resolve("live"))).isEqualTo(liveVersion);
    assertThat(Files.isDirectory(Path.of(plan.spec().checkpoint()))).isTrue();

    // the same command again: continues its own run, adds nothing
    BackfillSummary again = Backfill.into(plan, new ProgressLog(100), r -> {});
    assertThat(again.resumed()).isTrue();
    assertThat(again.rowsAdded()).isZero();
    assertThat(TableContents.ids(dir.resolve("fixed"))).isEqualTo(expected);

    // another range into the same table: refused, the table as it was
    BackfillPlan other =
        BackfillPlan.into(live, new BackfillRange(DAY, DAY.plus(Duration.ofHours(1))), into);
    assertThatThrownBy(() -> Backfill.into(other, new ProgressLog(100), r -> {}))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessageContaining("Cannot backfill pipeline clicks into " + into)
        .hasMessageContaining("the table exists with data");
    assertThat(TableContents.ids(dir.resolve("fixed"))).isEqualTo(expected);
  }

  @Test
  void windowedBackfillOnS3WritesTheWindowsInsideTheRangeAndNamesTheEdgeOnes() throws Exception {
    S3TestServer s3 = S3TestServer.shared();
    String bucket = s3.createBucket();
    String storage =
        "storage:\n  s3: { endpoint: \"%s\", region: us-east-1, path-style: true, access-key: \"%s\", secret-key: \"%s\" }\n"
            .formatted(s3.endpoint(), S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY);
    String topic = broker.createTopic("backfill-windowed", 2);
    produce(topic);
    PipelineSpec live =
        spec(
            topic,
            """
            watermark: { column: event_ts, delay: 10 minutes }
            aggregate:
              window: { column: event_ts, size: 1 hour }
              group-by: [kind]
              measures: { events: count(), amount: sum(amount) }
            output-mode: append""",
            "s3://" + bucket + "/t",
            storage);
    String into = "s3://" + bucket + "/t/fixed";
    BackfillPlan plan = BackfillPlan.into(live, RANGE, into);
    BackfillSummary summary = Backfill.into(plan, new ProgressLog(100), r -> {});

    // windows [2 h, 3 h) and [3 h, 4 h): the last one emitted although no event of the input
    // moved the watermark past 4 h (the backfill's closing watermark)
    Map<String, long[]> expected = expectedWindows();
    assertThat(expected).hasSize(6);
    Map<String, long[]> actual = new TreeMap<>();
    for (Object[] row : rows(into, s3.settings())) {
      assertThat(row[1]).isEqualTo(((Instant) row[0]).plus(Duration.ofHours(1)));
      long[] previous =
          actual.put(row[0] + " " + row[2], new long[] {(Long) row[3], (Long) row[4]});
      assertThat(previous).as("window %s %s once", row[0], row[2]).isNull();
    }
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
    expected.forEach((k, v) -> assertThat(actual.get(k)).as(k).containsExactly(v));
    assertThat(summary.rowsAdded()).isEqualTo(6);
    assertThat(summary.edges())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.start()).isEqualTo(DAY.plus(Duration.ofHours(1)));
              assertThat(e.why()).contains("starts before --from");
            });
    assertThat(summary.render())
        .contains("[" + DAY.plus(Duration.ofHours(1)) + ", " + DAY.plus(Duration.ofHours(2)) + ")");
    // nothing written where the live pipeline keeps its table and checkpoint
    try (ObjectStore store = ObjectStores.open("s3://" + bucket + "/t", s3.settings())) {
      assertThat(store.list("live")).isEmpty();
      assertThat(store.list("checkpoints/live/")).isEmpty();
    }
  }

  @Test
  void windowedBackfillOfADeltaSourceReadsTheTableAsOfTheStart() throws Exception {
    String topic = broker.createTopic("backfill-bronze", 2);
    produce(topic);
    PipelineSpec bronze = spec(topic, "", dir.toString(), "");
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(bronze),
            new TriggerSpec.AvailableNow(),
            new ProgressLog(100))) {
      run.run();
    }
    String gold =
        """
        pipeline: gold
        source:
          delta: { path: %s/live, max-files-per-trigger: 1 }
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 1 hour }
          group-by: [kind]
          measures: { events: count(), amount: sum(amount) }
        output-mode: append
        sink:
          delta: { path: %s/gold }
        checkpoint: %s/checkpoints/gold
        """
            .formatted(dir, dir, dir);
    PipelineSpec live = PipelineParser.parse(gold, "gold.yaml", Map.of());
    String into = dir.resolve("gold-fixed").toString();
    BackfillSummary summary =
        Backfill.into(BackfillPlan.into(live, RANGE, into), new ProgressLog(100), r -> {});

    Map<String, long[]> expected = expectedWindows();
    Map<String, long[]> actual = new TreeMap<>();
    for (Object[] row : rows(into, null)) {
      actual.put(row[0] + " " + row[2], new long[] {(Long) row[3], (Long) row[4]});
    }
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
    expected.forEach((k, v) -> assertThat(actual.get(k)).as(k).containsExactly(v));
    assertThat(summary.rowsAdded()).isEqualTo(6);
    assertThat(summary.render()).contains("the source table " + dir + "/live as of the start");
    assertThat(Files.exists(dir.resolve("gold"))).isFalse();
    assertThat(Files.exists(dir.resolve("checkpoints/gold"))).isFalse();
  }

  /** Per "window_start kind": count and sum of the events of the hour windows inside RANGE. */
  private static Map<String, long[]> expectedWindows() {
    Map<String, long[]> expected = new TreeMap<>();
    for (int i = 0; i < EVENTS; i++) {
      Instant t = eventTime(i);
      Instant start = DAY.plus(Duration.ofHours(Duration.between(DAY, t).toHours()));
      if (RANGE.containsWindow(start, start.plus(Duration.ofHours(1)))) {
        long[] agg = expected.computeIfAbsent(start + " k" + (i % 3), k -> new long[2]);
        agg[0]++;
        agg[1] += i;
      }
    }
    return expected;
  }

  @Test
  void aBackfillBesideTheRunningLivePipelineAndProducersLeavesBothComplete() throws Exception {
    String topic = broker.createTopic("backfill-concurrent", 2);
    produce(topic);
    PipelineSpec live =
        spec(topic, "watermark: { column: event_ts, delay: 10 minutes }", dir.toString(), "");
    ProgressLog liveProgress = new ProgressLog(1000);
    PipelineRun liveRun =
        PipelineRun.open(PipelineFactory.compile(live), live.trigger(), liveProgress);
    Thread liveThread =
        new Thread(
            () -> {
              try {
                liveRun.run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "live-pipeline");
    // later events keep arriving while both run: after the range (new ids from EVENTS on)
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicInteger produced = new AtomicInteger();
    Thread producer =
        new Thread(
            () -> {
              try (KafkaProducer<byte[], byte[]> p = broker.producer()) {
                for (int i = EVENTS; producing.get() || produced.get() < 50; i++) {
                  send(p, topic, i % 2, Instant.now(), event(i, Instant.now()));
                  produced.incrementAndGet();
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "producer");
    try {
      liveThread.start();
      producer.start();
      String into = dir.resolve("fixed").toString();
      BackfillSummary summary =
          Backfill.into(BackfillPlan.into(live, RANGE, into), new ProgressLog(100), r -> {});
      assertThat(summary.rowsAdded()).isEqualTo(300);
      List<Long> expected = new ArrayList<>();
      for (int i = 0; i < EVENTS; i++) {
        if (RANGE.contains(eventTime(i))) {
          expected.add((long) i);
        }
      }
      assertThat(TableContents.ids(dir.resolve("fixed"))).isEqualTo(expected);
    } finally {
      producing.set(false);
      producer.join(60_000);
      liveRun.stop();
      liveThread.join(60_000);
      liveRun.close();
    }
    assertThat(produced.get()).isGreaterThanOrEqualTo(50);
    // the live pipeline, drained: every event once, the backfill's range included
    try (PipelineRun drain =
        PipelineRun.open(
            PipelineFactory.compile(live), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      drain.run();
    }
    List<Long> all = new ArrayList<>();
    for (long i = 0; i < EVENTS + produced.get(); i++) {
      all.add(i);
    }
    all.add(100_000L);
    assertThat(TableContents.ids(dir.resolve("live"))).isEqualTo(all);
  }

  private static List<Object[]> rows(String table, S3Settings s3) throws Exception {
    try (ObjectStore store = ObjectStores.open(table, s3)) {
      return TableContents.rows(store);
    }
  }

  private static long snapshotVersion(Path table) throws Exception {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      return dev.tributary.table.DeltaTable.open(store, dev.tributary.table.TableOptions.defaults())
          .snapshot()
          .version();
    }
  }

  private static List<Path> files(Path root) throws Exception {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).sorted().toList();
    }
  }
}
