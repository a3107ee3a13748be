package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.DataFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code backfill --replace} on a real broker and local disk: a live table written with one derive
 * ({@code amount * 10}), then a range recomputed with the fixed one ({@code amount * 100}) and
 * swapped in. The tests share one topic and two live tables (stateless and windowed) and replace
 * disjoint ranges, each comparing against the table as it was just before its own swap.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BackfillReplaceIT {
  private static final Instant DAY =
      Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));
  private static final int EVENTS = 300; // one a minute over 5 hours

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir static Path dir;
  private String topic;

  private static Instant eventTime(int i) {
    return DAY.plusSeconds(60L * i);
  }

  @BeforeAll
  void produceAndRunTheLivePipelines() throws Exception {
    topic = broker.createTopic("backfill-replace", 2);
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < EVENTS; i++) {
        Instant t = eventTime(i);
        String value =
            "{\"id\":%d,\"kind\":\"k%d\",\"event_ts\":\"%s\",\"amount\":%d}"
                .formatted(i, i % 3, t, i);
        producer.send(
            new ProducerRecord<>(
                topic, i % 2, t.toEpochMilli(), null, value.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    for (PipelineSpec live : List.of(stateless("10"), windowed("amount"))) {
      try (PipelineRun run =
          PipelineRun.open(
              PipelineFactory.compile(live),
              new TriggerSpec.AvailableNow(),
              new ProgressLog(100))) {
        run.run();
      }
    }
  }

  private PipelineSpec stateless(String factor) {
    return spec(
        "clicks",
        """
        transform:
          - derive: { amount_x: "amount * %s" }
        watermark: { column: event_ts, delay: 10 minutes }"""
            .formatted(factor));
  }

  private PipelineSpec windowed(String measured) {
    return spec(
        "clicks-hourly",
        """
        transform:
          - derive: { measured: "%s" }
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 30 minutes }
          group-by: [kind]
          measures: { events: count(), total: sum(measured) }
        output-mode: append"""
            .formatted(measured));
  }

  private PipelineSpec spec(String id, String query) {
    String yaml =
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 40
        format:
          json:
            schema: { id: long, kind: string, event_ts: timestamp, amount: long }
        %s
        sink:
          delta: { path: %s/%s }
        checkpoint: %s/checkpoints/%s
        """
            .formatted(id, broker.bootstrapServers(), topic, query, dir, id, dir, id);
    return PipelineParser.parse(yaml, id + ".yaml", Map.of());
  }

  private static BackfillRange range(int fromMinute, int toMinute) {
    return new BackfillRange(
        DAY.plus(Duration.ofMinutes(fromMinute)), DAY.plus(Duration.ofMinutes(toMinute)));
  }

  @Test
  void theRangeCarriesTheNewDeriveTheRestIsUntouchedAndARerunDoesNothing() throws Exception {
    BackfillRange range = range(95, 185);
    Map<Long, List<Object>> before = rowsById("clicks");
    Set<String> outsideFiles = filesEntirelyOutside("clicks", range);
    assertThat(outsideFiles).isNotEmpty();

    ReplaceSummary summary =
        Backfill.replace(
            BackfillPlan.replace(stateless("100"), range), new ProgressLog(100), r -> {});

    Map<Long, List<Object>> after = rowsById("clicks");
    assertThat(after.keySet()).isEqualTo(before.keySet()); // nothing lost or doubled
    long inRange = 0;
    for (var e : after.entrySet()) {
      Instant t = (Instant) e.getValue().get(2);
      if (range.contains(t)) {
        inRange++;
        assertThat(e.getValue().get(4)).isEqualTo(e.getKey() * 100); // the fixed derive
      } else {
        assertThat(e.getValue()).isEqualTo(before.get(e.getKey())); // as the live run wrote it
      }
    }
    assertThat(inRange).isEqualTo(90);
    assertThat(paths("clicks")).containsAll(outsideFiles); // the same files, not copies
    assertThat(summary.alreadySwapped()).isFalse();
    assertThat(summary.swap().orElseThrow().rowsAdded()).isEqualTo(90);
    assertThat(summary.swap().orElseThrow().rowsRemoved()).isEqualTo(90);
    assertThat(summary.swap().orElseThrow().filesRewritten()).isPositive();
    assertThat(summary.attempts()).isEqualTo(1);
    assertThat(summary.render()).contains("one commit").contains("never delete it");

    long version = snapshot("clicks").version();
    ReplaceSummary again =
        Backfill.replace(
            BackfillPlan.replace(stateless("100"), range), new ProgressLog(100), r -> {});
    assertThat(again.alreadySwapped()).isTrue();
    assertThat(again.render()).contains("already swapped");
    assertThat(snapshot("clicks").version()).isEqualTo(version);
    assertThat(rowsById("clicks")).isEqualTo(after);
  }

  @Test
  void onlyWindowsInsideTheRangeAreReplacedTheEdgeWindowsAreLeftAlone() throws Exception {
    BackfillRange range = range(75, 165); // 1:15 to 2:45: edges [1:00, 1:30) and [2:30, 3:00)
    Map<List<Object>, List<Object>> before = windows();
    assertThat(before).isNotEmpty();

    ReplaceSummary summary =
        Backfill.replace(
            BackfillPlan.replace(windowed("amount * 2"), range), new ProgressLog(100), r -> {});

    Map<List<Object>, List<Object>> after = windows();
    assertThat(after.keySet()).isEqualTo(before.keySet());
    int replaced = 0;
    for (var e : after.entrySet()) {
      Instant start = (Instant) e.getKey().get(0);
      Instant end = (Instant) e.getKey().get(1);
      long total = (Long) e.getValue().get(1);
      long old = (Long) before.get(e.getKey()).get(1);
      if (range.containsWindow(start, end)) {
        replaced++;
        assertThat(total).isEqualTo(old * 2);
      } else {
        assertThat(e.getValue()).isEqualTo(before.get(e.getKey()));
      }
    }
    assertThat(replaced).isEqualTo(6); // [1:30, 2:00) and [2:00, 2:30) of three kinds
    assertThat(summary.edges()).hasSize(2);
    assertThat(summary.render()).contains("edge windows left alone");
  }

  @Test
  void aConcurrentAppendOutsideTheRangeCommitsOneInsideMakesTheSwapPlanAgain() throws Exception {
    BackfillRange range = range(200, 230);
    AtomicInteger plans = new AtomicInteger();
    ReplaceSummary summary =
        CrashPoints.onThisThread(
            point -> {
              if (!point.equals(CrashPoints.BACKFILL_REWRITTEN)) {
                return;
              }
              // the live pipeline appends between the swap's plan and its commit
              try {
                if (plans.incrementAndGet() == 1) {
                  append(90_001, DAY.minus(Duration.ofHours(1)), "outside");
                  append(90_002, DAY.plus(Duration.ofMinutes(210)), "inside");
                } else if (plans.get() == 2) {
                  append(90_003, DAY.plus(Duration.ofMinutes(290)), "outside");
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            () ->
                Backfill.replace(
                    BackfillPlan.replace(stateless("100"), range), new ProgressLog(100), r -> {}));
    assertThat(summary.attempts()).isEqualTo(2);
    assertThat(plans.get()).isEqualTo(2);
    Map<Long, List<Object>> after = rowsById("clicks");
    // both appends outside the range stay; the row inside it, read from no event of the source,
    // is replaced with the range's fresh computation like every other row of the range
    assertThat(after).containsKeys(90_001L, 90_003L).doesNotContainKey(90_002L);
    for (var e : after.entrySet()) {
      if (range.contains((Instant) e.getValue().get(2))) {
        assertThat(e.getValue().get(4)).isEqualTo(e.getKey() * 100);
      }
    }
    assertThat(after.keySet().stream().filter(id -> id < EVENTS)).hasSize(EVENTS);
  }

  @Test
  void aRangeThatKeepsConflictingIsRefusedNamingThePipelineAndNothingIsSwapped() throws Exception {
    BackfillRange range = range(240, 260);
    AtomicInteger plans = new AtomicInteger();
    BackfillPlan plan = BackfillPlan.replace(stateless("100"), range);
    assertThatThrownBy(
            () ->
                CrashPoints.onThisThread(
                    point -> {
                      if (point.equals(CrashPoints.BACKFILL_REWRITTEN)) {
                        try {
                          int n = plans.incrementAndGet();
                          append(91_000 + n, DAY.plus(Duration.ofMinutes(250)), "inside");
                        } catch (Exception e) {
                          throw new IllegalStateException(e);
                        }
                      }
                    },
                    () -> Backfill.replace(plan, new ProgressLog(100), r -> {})))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessageContaining("Cannot backfill pipeline clicks --replace")
        .hasMessageContaining("planned " + Backfill.SWAP_ATTEMPTS + " times")
        .hasMessageContaining("may hold rows of the range");
    assertThat(plans.get()).isEqualTo(Backfill.SWAP_ATTEMPTS);
    assertThat(snapshot("clicks").latestTransactionVersion(plan.id() + "/replace")).isEmpty();
    for (int n = 1; n <= Backfill.SWAP_ATTEMPTS; n++) {
      assertThat(rowsById("clicks")).containsKey(91_000L + n); // the live appends all stand
    }
  }

  /** Appends one row as the live pipeline would (old derive), in its own commit. */
  private void append(long id, Instant t, String why) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("clicks").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      try (AppendTransaction tx = table.newAppend(new TransactionId("test-" + why + id, 0))) {
        tx.write(new Object[] {id, "k0", t, id, id * 10, null, null, null, null});
        tx.commit(Map.of());
      }
    }
  }

  private Map<Long, List<Object>> rowsById(String table) throws Exception {
    Map<Long, List<Object>> out = new TreeMap<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      for (Object[] row : TableContents.rows(store)) {
        assertThat(out.put((Long) row[0], Arrays.asList(row))).as("id %s once", row[0]).isNull();
      }
    }
    return out;
  }

  /** (window_start, window_end, kind) to (events, total). */
  private Map<List<Object>, List<Object>> windows() throws Exception {
    Map<List<Object>, List<Object>> out =
        new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    try (ObjectStore store = ObjectStores.open(dir.resolve("clicks-hourly").toString(), null)) {
      Snapshot s = snapshot("clicks-hourly");
      int start = s.schema().indexOf("window_start");
      int end = s.schema().indexOf("window_end");
      int kind = s.schema().indexOf("kind");
      int events = s.schema().indexOf("events");
      int total = s.schema().indexOf("total");
      for (Object[] row : TableContents.rows(store)) {
        List<Object> key = List.of(row[start], row[end], row[kind]);
        assertThat(out.put(key, List.of(row[events], row[total])))
            .as("window %s once", key)
            .isNull();
      }
    }
    return out;
  }

  private Snapshot snapshot(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot();
    }
  }

  private Set<String> paths(String table) throws Exception {
    return snapshot(table).files().stream().map(DataFile::path).collect(Collectors.toSet());
  }

  /** Files whose event times all lie outside {@code range}, by their statistics. */
  private Set<String> filesEntirelyOutside(String table, BackfillRange range) throws Exception {
    return snapshot(table).files().stream()
        .filter(
            f -> {
              Instant min = (Instant) f.stats().minValues().get("event_ts");
              Instant max = (Instant) f.stats().maxValues().get("event_ts");
              return max.isBefore(range.from()) || !min.isBefore(range.to());
            })
        .map(DataFile::path)
        .collect(Collectors.toSet());
  }
}
