package dev.tributary.service.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay protocol on local tables: a quarantine filled as the live pipeline fills it (records
 * that failed an older declaration), the declaration fixed, then replays, crashes at every point of
 * a run (in-process: {@link CrashAt}), and a live pipeline's commits between a run's read and its
 * commits. The child-JVM kill -9 proof against a broker and S3 is {@code ReplayQuarantineIT}.
 */
class QuarantineReplayTest {
  private static final String OLD_ERROR = "field amount: expected long, got \"2.5\"";

  @TempDir Path dir;

  /** Offsets 0-3 on each of two partitions: amounts with decimals (the old schema said long). */
  private void quarantineDecimals() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      for (int o = 0; o < 4; o++) {
        long id = p * 100L + o;
        rows.add(row(p, o, "{\"id\":" + id + ",\"amount\":" + o + ".5}", OLD_ERROR));
      }
    }
    rows.add(row(0, 4, "{\"id\": 4, \"amount\": ", "malformed JSON at 21"));
    rows.add(row(1, 4, "{\"id\":104,\"amount\":-1.5}", OLD_ERROR));
    appendQuarantine(rows, 1);
  }

  private Object[] row(int partition, long offset, String value, String error) {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>(
            "orders", partition, offset, null, value.getBytes(StandardCharsets.UTF_8));
    return QuarantineRows.row(
        record, error, "replay-test", 7, Instant.parse("2026-12-01T00:00:00Z"));
  }

  /** Appends rows to the quarantine table as the live pipeline's batch {@code batch} would. */
  private void appendQuarantine(List<Object[]> rows, long batch) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      if (!table.exists()) {
        table.create(QuarantineRows.SCHEMA, List.of(), Map.of());
      }
      try (AppendTransaction tx = table.newAppend(new TransactionId("replay-test@live", batch))) {
        for (Object[] r : rows) {
          tx.write(r);
        }
        tx.commit(Map.of());
      }
    }
  }

  /**
   * The fixed declaration: amount is a double; ids 3 and 103 are filtered out; amounts must be
   * positive.
   */
  private PipelineSpec spec(String extra) {
    String yaml =
        """
        pipeline: replay-test
        source:
          kafka:
            bootstrap-servers: 127.0.0.1:9
            topics: [orders]
        format:
          json:
            schema: { id: long, amount: double }
        transform:
          - filter: "id <> 3 AND id <> 103"
        expectations:
          - { name: positive_amount, check: "amount > 0", on-violation: quarantine }
        sink:
          delta:
            path: %s
        quarantine:
          delta: { path: "%s" }
        checkpoint: %s
        %s
        """
            .formatted(
                dir.resolve("sink"), dir.resolve("quarantine"), dir.resolve("checkpoint"), extra);
    return PipelineParser.parse(yaml, "replay-test.yaml", Map.of());
  }

  private ReplayReport replay(Optional<String> where) throws Exception {
    return Replays.run(spec(""), where).orElseThrow();
  }

  /** The sink's ids, sorted: a record written twice shows twice. */
  private List<Long> sinkIds() throws Exception {
    return TableContents.ids(dir.resolve("sink"));
  }

  /** The quarantine's rows by record: partition/offset -> error. */
  private Map<String, String> quarantined() throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      for (Object[] r : TableContents.rows(store)) {
        String key = r[1] + "/" + r[2];
        assertThat(out.put(key, (String) r[6])).as("record %s once in quarantine", key).isNull();
      }
    }
    return out;
  }

  private long version(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
    }
  }

  @Test
  void recordsThatNowParseGoToTheSinkOnceAndTheRestKeepTheirNewError() throws Exception {
    quarantineDecimals();

    ReplayReport first = replay(Optional.empty());

    assertThat(first.run()).isEqualTo(1);
    assertThat(first.selected()).isEqualTo(10);
    assertThat(first.replayed()).as("id 3 and 103 filtered: replayed, no row").isEqualTo(8);
    assertThat(first.rowsWritten()).isEqualTo(6);
    assertThat(sinkIds()).containsExactly(0L, 1L, 2L, 100L, 101L, 102L);
    Map<String, String> left = quarantined();
    assertThat(left).containsOnlyKeys("0/4", "1/4");
    assertThat(left.get("0/4")).startsWith("malformed JSON at line 1 column 21");
    assertThat(left.get("1/4")).contains("positive_amount");
    assertThat(first.stillFailing()).isEqualTo(2);
    assertThat(first.failures()).hasSize(2);
    assertThat(first.failures().get(0).samples()).containsExactly(new RecordKey("orders", 0, 4));

    long sinkVersion = version("sink");
    long quarantineVersion = version("quarantine");
    ReplayReport second = replay(Optional.empty());

    assertThat(second.replayed()).isZero();
    assertThat(second.stillFailing()).isEqualTo(2);
    assertThat(second.sinkVersion()).isEqualTo(-1);
    assertThat(second.quarantineCommit())
        .as("the errors are the same: nothing to commit")
        .isEqualTo(-1);
    assertThat(version("sink")).isEqualTo(sinkVersion);
    assertThat(version("quarantine")).isEqualTo(quarantineVersion);
    assertThat(sinkIds()).containsExactly(0L, 1L, 2L, 100L, 101L, 102L);
    assertThat(quarantined()).isEqualTo(left);
  }

  @Test
  void whereSelectsTheRecordsToReplay() throws Exception {
    quarantineDecimals();

    ReplayReport report = replay(Optional.of("`partition` = 1 AND `offset` < 2"));

    assertThat(report.selected()).isEqualTo(2);
    assertThat(sinkIds()).containsExactly(100L, 101L);
    assertThat(quarantined()).hasSize(8).doesNotContainKeys("1/0", "1/1");
    assertThat(quarantined().get("0/0")).as("not selected: untouched").isEqualTo(OLD_ERROR);

    ReplayReport rest = replay(Optional.of("error LIKE '%expected long%'"));

    assertThat(rest.run()).isEqualTo(2);
    assertThat(sinkIds()).containsExactly(0L, 1L, 2L, 100L, 101L, 102L);
    assertThat(quarantined()).containsOnlyKeys("0/4", "1/4");
  }

  @Test
  void aWhereThatIsNotAPredicateIsRefusedNamingTheColumns() throws Exception {
    quarantineDecimals();
    long before = version("quarantine");

    assertThatThrownBy(() -> replay(Optional.of("no_such_column = 1")))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("--where 'no_such_column = 1'")
        .hasMessageContaining("[topic, partition, offset");
    assertThat(version("quarantine")).isEqualTo(before);
  }

  @Test
  void aStatefulPipelineIsRefusedSayingWhy() throws Exception {
    quarantineDecimals();
    String yaml =
        """
        pipeline: replay-test
        source: { kafka: { bootstrap-servers: 127.0.0.1:9, topics: [orders] } }
        format: { json: { schema: { id: long, amount: double } } }
        deduplicate: { keys: [id] }
        sink: { delta: { path: %s } }
        checkpoint: %s
        """
            .formatted(dir.resolve("sink"), dir.resolve("checkpoint"));

    assertThatThrownBy(
            () ->
                Replays.run(
                    PipelineParser.parse(yaml, "stateful.yaml", Map.of()), Optional.empty()))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("Pipeline replay-test cannot run")
        .hasMessageContaining("stateful pipeline's replayed records would enter windows")
        .hasMessageContaining("backfill");
  }

  @Test
  void aCrashAtEveryPointOfARunLosesAndDoublesNothing() throws Exception {
    List<CrashAt> points =
        List.of(
            new CrashAt(CrashPoints.REPLAY_MID_RUN, 3),
            new CrashAt(CrashPoints.AFTER_DATA_FILES, 1),
            new CrashAt(CrashPoints.REPLAY_AFTER_SINK_COMMIT, 1),
            new CrashAt(CrashPoints.REPLAY_AFTER_QUARANTINE_COMMIT, 1));
    for (CrashAt crash : points) {
      cleanTables();
      quarantineDecimals();

      assertThat(crash.runCrashing(() -> replay(Optional.empty())))
          .as("crashed at %s", crash)
          .isTrue();
      ReplayReport after = replay(Optional.empty());

      assertThat(sinkIds()).as("after %s", crash).containsExactly(0L, 1L, 2L, 100L, 101L, 102L);
      assertThat(quarantined()).as("after %s", crash).containsOnlyKeys("0/4", "1/4");
      if (crash.point().equals(CrashPoints.REPLAY_AFTER_SINK_COMMIT)) {
        assertThat(after.completed()).isPresent();
        assertThat(after.completed().get().records()).isEqualTo(8);
        assertThat(after.replayed()).as("completed, not written again").isZero();
      }
      long sinkVersion = version("sink");
      replay(Optional.empty());
      assertThat(version("sink")).as("a further replay after %s", crash).isEqualTo(sinkVersion);
    }
  }

  @Test
  void aCrashWhileCompletingAnInterruptedRunIsCompletedByTheNext() throws Exception {
    quarantineDecimals();
    assertThat(
            new CrashAt(CrashPoints.REPLAY_AFTER_SINK_COMMIT, 1)
                .runCrashing(() -> replay(Optional.empty())))
        .isTrue();
    // the completion commits the quarantine, then dies before the new run
    assertThat(
            new CrashAt(CrashPoints.REPLAY_AFTER_QUARANTINE_COMMIT, 1)
                .runCrashing(() -> replay(Optional.empty())))
        .isTrue();
    assertThat(quarantined()).containsOnlyKeys("0/4", "1/4");

    ReplayReport report = replay(Optional.empty());

    assertThat(report.completed()).isEmpty();
    assertThat(report.run()).isEqualTo(2);
    assertThat(sinkIds()).containsExactly(0L, 1L, 2L, 100L, 101L, 102L);
  }

  @Test
  void theLivePipelinesCommitsDuringARunStayAndItsTxnIsUntouched() throws Exception {
    quarantineDecimals();
    AtomicBoolean appended = new AtomicBoolean();

    ReplayReport report =
        CrashPoints.onThisThread(
            point -> {
              if (point.equals(CrashPoints.REPLAY_AFTER_SINK_COMMIT) && !appended.get()) {
                appended.set(true);
                try {
                  // the live pipeline's next batch quarantines a new record after the run read
                  // the table
                  appendQuarantine(List.<Object[]>of(row(0, 9, "{\"id\":9,", "malformed")), 2);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }
            },
            () -> replay(Optional.empty()));

    assertThat(appended).isTrue();
    assertThat(report.quarantineCommit()).isPositive();
    assertThat(quarantined()).containsOnlyKeys("0/4", "1/4", "0/9");
    assertThat(quarantined().get("0/9")).isEqualTo("malformed");
    try (ObjectStore store = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      assertThat(table.latestTransactionVersion("replay-test@live")).hasValue(2);
      assertThat(table.latestTransactionVersion("replay-test/replay")).hasValue(1);
    }
  }

  private void cleanTables() throws Exception {
    for (String t : List.of("sink", "quarantine")) {
      Path p = dir.resolve(t);
      if (p.toFile().exists()) {
        try (var files = java.nio.file.Files.walk(p)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
      }
    }
  }
}
