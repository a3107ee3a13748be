package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.cli.Main;
import dev.tributary.service.join.DimensionTables;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.SetTransaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once through three layers under kill -9 at every step of every layer (issue #12, item 5):
 * bronze (Kafka to Delta, stateless; malformed records go to its quarantine table), silver
 * (bronze's commits to Delta: a filter, derived columns and a left stream-static join with a
 * customers dimension table; a row whose derived timestamp no Delta table can hold goes to its
 * quarantine table) and gold (silver's commits to Delta: a count per hour, tumbling window, append
 * mode, stateful; a row whose {@code max} input is such a timestamp goes to its quarantine table),
 * each declared in YAML and run by the command line ({@code run --pipeline <layer>.yaml
 * --available-now}) in a child JVM halted at a crash point ({@link CrashPoints}: {@code
 * Runtime.halt}, the same as kill -9).
 *
 * <p>Every layer reaches every point, in every batch it plans with input (MicroBatchEngine): {@code
 * after-plan} and {@code after-offsets-log} when a batch is planned; {@code mid-batch} before each
 * input record or row; {@code after-data-files} when a table writer has written its files, before
 * its commit: the quarantine table's writer first, then the sink's (used here: the sink's Parquet
 * files exist, uncommitted); {@code after-quarantine-commit} after the quarantine table's commit,
 * which every batch makes (with the batch's transaction id, rows or not; bronze, silver and gold
 * each do quarantine rows here); {@code after-sink-commit}; {@code after-state-commit} after the
 * processor's state commit: gold's state store; in the stateless bronze and silver the step commits
 * nothing, so the halt leaves the same durable state as {@code after-sink-commit} but is still
 * reached and replayed from; {@code after-commits-log}. So all 24 (layer, point) pairs are run.
 *
 * <p><b>A chain of halts per layer.</b> Every record is produced first. Then each layer in turn
 * (bronze, silver over the drained bronze, gold over the drained silver) runs halted at the first
 * point, and each restart recovers the halt before it (replays the written-ahead batch, or plans it
 * again) and goes on to halt at the next point in the first batch it plans itself after the batch
 * of the halt before; a last restart drains the layer: nine child JVMs a layer. The occurrence is
 * counted from what the restart passes first: a replayed batch passes every point but {@code
 * after-plan} and {@code after-offsets-log} (its rows for {@code mid-batch}, so {@code mid-batch}
 * comes last, after {@code after-commits-log}, which leaves nothing to replay; {@code
 * after-data-files} once per table that lacks the batch). After each halt the run's log and exit
 * status say it halted at its point, and the layer's checkpoint and tables say it halted in that
 * batch at that step (the latest offsets and commits entries; which of the quarantine and sink
 * tables hold the batch), after the batch of the halt before was committed (its recovery finished).
 * Then bronze holds every well-formed produced record once (and its quarantine every malformed one
 * once), and silver and gold equal the batch computation over bronze, their quarantine tables
 * holding exactly the rows they set aside, once each.
 */
class MedallionCrashIT {
  /**
   * Every point, each layer halted at them in this order: batch order, but {@code mid-batch} after
   * {@code after-commits-log}, whose restart replays nothing (so its rows are the first counted).
   */
  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_STATE_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG,
    CrashPoints.MID_BATCH,
  };

  /** Records in all: bronze (20 a batch) plans 27 batches, silver and gold one per file above. */
  private static final int RECORDS = 540;

  private static final String[] LAYERS = {"bronze", "silver", "gold"};
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /**
   * Seconds: CAST to timestamp gives the year 14645, which no Delta table holds (silver
   * quarantines).
   */
  private static final long FAR_SHIFT = 400_000_000_000L;

  /**
   * Seconds: a 1982 timestamp for silver, but times 1000 (gold's derived column) the year 14645.
   */
  private static final long GOLD_FAR_SHIFT = 400_000_000L;

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;
  private String topic;
  private long produced;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.shared();
  }

  /** Record {@code id} happens 10 minutes after record {@code id - 1}: six per hour, in order. */
  private static Instant at(long id) {
    return T0.plus(Duration.ofMinutes(10 * id));
  }

  /** Bronze quarantines these: not JSON. */
  private static boolean malformed(long id) {
    return id % 31 == 30;
  }

  private static long shift(long id) {
    return id % 23 == 5 ? FAR_SHIFT : id % 29 == 7 ? GOLD_FAR_SHIFT : 0;
  }

  private static String customer(long id) {
    return "c" + id % 5;
  }

  private void produce(int count) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++, produced++) {
        String value =
            malformed(produced)
                ? "not json " + produced
                : "{\"id\":%d,\"amount\":%d,\"at\":%d,\"shift\":%d,\"customer_id\":\"%s\"}"
                    .formatted(
                        produced,
                        produced % 4,
                        at(produced).toEpochMilli(),
                        shift(produced),
                        customer(produced));
        producer
            .send(new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8)))
            .get();
      }
    }
  }

  private void writePipelines() throws Exception {
    // c4 is not in the dimension: the left join keeps its rows with a null segment.
    DimensionTables.create(
        dir.resolve("customers"),
        List.of(
            DimensionTables.customer("c0", "s0", "EU", 0),
                DimensionTables.customer("c1", "s1", "EU", 1),
            DimensionTables.customer("c2", "s2", "US", 2),
                DimensionTables.customer("c3", "s3", "US", 3)));
    Files.writeString(
        dir.resolve("bronze.yaml"),
        """
        pipeline: bronze
        source:
          kafka:
            bootstrap-servers: %2$s
            topics: [%3$s]
            max-offsets-per-trigger: 20
        format:
          json:
            schema: { id: long, amount: long, at: timestamp, shift: long, customer_id: string }
        sink:
          delta: { path: %1$s/bronze }
        checkpoint: %1$s/chk/bronze
        """
            .formatted(dir, broker.bootstrapServers(), topic));
    Files.writeString(
        dir.resolve("silver.yaml"),
        """
        pipeline: silver
        source:
          delta: { path: %1$s/bronze, max-files-per-trigger: 1 }
        transform:
          - filter: "amount > 0"
          - derive: { amount_times_two: "amount * 2", shifted: "CAST(shift AS timestamp)" }
        join:
          - delta: { path: %1$s/customers }
            on: [customer_id]
            type: left
            columns: [segment]
        sink:
          delta: { path: %1$s/silver }
        checkpoint: %1$s/chk/silver
        """
            .formatted(dir));
    Files.writeString(
        dir.resolve("gold.yaml"),
        """
        pipeline: gold
        source:
          delta: { path: %1$s/silver, max-files-per-trigger: 1 }
        transform:
          - derive: { far: "CAST(shift * 1000 AS timestamp)" }
        watermark: { column: at, delay: 1 minute }
        aggregate:
          window: { column: at, size: 1 hour }
          measures: { n: count(), latest_far: max(far) }
        output-mode: append
        sink:
          delta: { path: %1$s/gold }
        checkpoint: %1$s/chk/gold
        """
            .formatted(dir));
  }

  private void run(String layer, String crashAt, String logName) throws Exception {
    List<String> jvm =
        new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    if (crashAt != null) {
      jvm.add("-Dtributary.test.crash-at=" + crashAt);
    }
    Path log = dir.resolve(logName + ".log");
    Process child =
        ChildJvm.start(
            jvm,
            Main.class.getName(),
            List.of(
                "run", "--pipeline", dir.resolve(layer + ".yaml").toString(), "--available-now"),
            log,
            dir);
    boolean exited = child.waitFor(120, TimeUnit.SECONDS);
    if (!exited) {
      child.destroyForcibly().waitFor();
    }
    assertThat(exited)
        .as("%s run %s finished; log:%n%s", layer, logName, Files.readString(log))
        .isTrue();
    if (crashAt == null) {
      assertThat(child.exitValue())
          .as("%s drained; log:%n%s", layer, Files.readString(log))
          .isZero();
    } else {
      assertThat(child.exitValue())
          .as("%s halted at %s; log:%n%s", layer, crashAt, Files.readString(log))
          .isEqualTo(137);
      assertThat(Files.readString(log)).contains("crash point " + crashAt + " reached");
    }
  }

  @Test
  void silverAndGoldEqualTheBatchComputationOverBronzeAfterAHaltAtEveryPointOfEveryLayer()
      throws Exception {
    topic = broker.newTopic("events", 1);
    writePipelines();
    Random random = new Random(20261201L);
    produce(RECORDS);
    for (String layer : LAYERS) {
      long previous = -1;
      for (int h = 0; h < POINTS.length; h++) {
        previous = haltOnce(layer, POINTS[h], previous, random, layer + "-halt-" + h);
      }
      run(layer, null, layer + "-final");
    }
    assertThat(malformed(produced - 1) || shift(produced - 1) != 0 || (produced - 1) % 4 == 0)
        .as("the latest event reaches gold, so the watermark below is gold's")
        .isFalse();

    // Bronze: every produced record once, in the table or (malformed) in its quarantine table.
    List<Map<String, Object>> bronze = rows("bronze");
    List<Long> bronzeIds = ids(bronze, "id");
    List<Long> all = LongStream.range(0, produced).boxed().toList();
    assertThat(bronzeIds)
        .as("every well-formed record once in bronze")
        .isEqualTo(all.stream().filter(id -> !malformed(id)).toList());
    List<Long> bronzeQuarantined = new ArrayList<>();
    for (Map<String, Object> q : rows("bronze-quarantine")) {
      bronzeQuarantined.add(
          Long.parseLong(
              new String((byte[]) q.get("value"), StandardCharsets.UTF_8)
                  .substring("not json ".length())));
    }
    bronzeQuarantined.sort(null);
    assertThat(bronzeQuarantined)
        .as("every malformed record once in bronze's quarantine")
        .isEqualTo(all.stream().filter(MedallionCrashIT::malformed).toList())
        .isNotEmpty();

    // The batch computation over bronze: silver's filter, its quarantine (a timestamp of the year
    // 14645), its join; gold's quarantine, then the count per hour of the windows the final
    // watermark (latest event time - 1 minute) closed.
    List<Long> silverExpected = new ArrayList<>();
    List<Long> silverQuarantineExpected = new ArrayList<>();
    List<Long> goldQuarantineExpected = new ArrayList<>();
    List<Instant> goldTimes = new ArrayList<>();
    Instant latest = Instant.MIN;
    for (Map<String, Object> row : bronze) {
      long id = (Long) row.get("id");
      if ((Long) row.get("amount") <= 0) {
        continue;
      }
      if ((Long) row.get("shift") == FAR_SHIFT) {
        silverQuarantineExpected.add(id);
        continue;
      }
      silverExpected.add(id);
      if ((Long) row.get("shift") == GOLD_FAR_SHIFT) {
        goldQuarantineExpected.add(id);
        continue;
      }
      Instant t = (Instant) row.get("at");
      goldTimes.add(t);
      latest = latest.isAfter(t) ? latest : t;
    }
    silverExpected.sort(null);
    silverQuarantineExpected.sort(null);
    goldQuarantineExpected.sort(null);

    List<Map<String, Object>> silver = rows("silver");
    for (Map<String, Object> row : silver) {
      long id = (Long) row.get("id");
      assertThat((Long) row.get("amount")).isPositive();
      assertThat(row.get("amount_times_two")).isEqualTo((Long) row.get("amount") * 2);
      assertThat(row.get("shifted")).isEqualTo(Instant.ofEpochSecond(shift(id)));
      assertThat(row.get("segment"))
          .as("joined segment of %d", id)
          .isEqualTo(id % 5 == 4 ? null : "s" + id % 5);
    }
    assertThat(ids(silver, "id"))
        .as("silver: the filtered bronze rows, once each")
        .isEqualTo(silverExpected);
    assertThat(sourceRowIds("silver-quarantine"))
        .as("silver's quarantine: the far timestamps, once each")
        .isEqualTo(silverQuarantineExpected)
        .isNotEmpty();
    assertThat(sourceRowIds("gold-quarantine"))
        .as("gold's quarantine: the far max inputs, once each")
        .isEqualTo(goldQuarantineExpected)
        .isNotEmpty();

    Map<Instant, Long> expected = new TreeMap<>();
    Instant watermark = latest.minus(Duration.ofMinutes(1));
    for (Instant t : goldTimes) {
      Instant start = T0.plus(Duration.ofHours(Duration.between(T0, t).toHours()));
      if (!start.plus(Duration.ofHours(1)).isAfter(watermark)) {
        expected.merge(start, 1L, Long::sum);
      }
    }
    Map<Instant, Long> gold = new TreeMap<>();
    for (Map<String, Object> row : rows("gold")) {
      assertThat(gold.put((Instant) row.get("window_start"), (Long) row.get("n")))
          .as("window %s written once", row.get("window_start"))
          .isNull();
      assertThat(row.get("latest_far")).isEqualTo(Instant.EPOCH);
    }
    assertThat(gold)
        .as("gold equals the batch computation over bronze")
        .isEqualTo(expected)
        .isNotEmpty();
  }

  /**
   * Runs {@code layer} from where its checkpoint stands, halted at {@code point} in the first batch
   * it plans after the batch of the halt before ({@code previous}), and checks from the checkpoint
   * and the tables that it halted there, after the batch of the halt before ({@code previous}) was
   * committed.
   *
   * @return the batch it halted in
   */
  private long haltOnce(String layer, String point, long previous, Random random, String logName)
      throws Exception {
    Position start = position(layer);
    // The first batch it plans itself, and a later one than the halt before (an after-plan halt's
    // batch is planned again by the restart, and finished before the next halt).
    long batch = Math.max(start.offsets() + 1, previous + 1);
    int planned = (int) (batch - start.offsets() - 1); // new batches before it
    int replayed = start.replays() ? 1 : 0;
    int occurrence =
        switch (point) {
          case CrashPoints.AFTER_PLAN, CrashPoints.AFTER_OFFSETS_LOG -> planned + 1;
          case CrashPoints.MID_BATCH -> {
            assertThat(replayed + planned)
                .as("%s: nothing replayed or planned before the mid-batch halt's batch", layer)
                .isZero();
            yield 1 + random.nextInt(10);
          }
          // the sink's files, after the quarantine table's
          case CrashPoints.AFTER_DATA_FILES ->
              (start.replays() ? tablesLacking(layer, start.offsets()) : 0) + 2 * (planned + 1);
          default -> replayed + planned + 1;
        };
    String crashAt = point + ":" + occurrence;
    run(layer, crashAt, logName);
    Position now = position(layer);
    assertThat(now.committed())
        .as(
            "%s %s: the restart first finished the batch of the halt before, %d",
            layer, point, previous)
        .isGreaterThanOrEqualTo(previous);
    assertThat(now)
        .as("%s halted at %s in batch %d", layer, point, batch)
        .isEqualTo(
            new Position(
                point.equals(CrashPoints.AFTER_PLAN) ? batch - 1 : batch,
                point.equals(CrashPoints.AFTER_COMMITS_LOG) ? batch : batch - 1));
    long before = batch - 1;
    List<Long> tables =
        switch (point) {
          case CrashPoints.AFTER_DATA_FILES, CrashPoints.AFTER_QUARANTINE_COMMIT ->
              List.of(batch, before);
          case CrashPoints.AFTER_SINK_COMMIT,
              CrashPoints.AFTER_STATE_COMMIT,
              CrashPoints.AFTER_COMMITS_LOG ->
              List.of(batch, batch);
          default -> List.of(before, before);
        };
    assertThat(List.of(lastBatch(layer, "-quarantine"), lastBatch(layer, "")))
        .as("%s %s: the batches its quarantine and sink tables hold", layer, point)
        .isEqualTo(tables);
    return batch;
  }

  /**
   * Where a layer's checkpoint stands: its latest offsets and commits entries' batch ids (-1:
   * none). A restart replays batch {@code offsets} first when it is not committed.
   */
  private record Position(long offsets, long committed) {
    boolean replays() {
      return offsets > committed;
    }
  }

  private static Position position(String layer) throws Exception {
    if (!Files.exists(dir.resolve("chk/" + layer))) {
      return new Position(-1, -1); // not opened here: the first run creates it
    }
    PipelineSpec spec = PipelineParser.parse(dir.resolve(layer + ".yaml"), Map.of());
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      return new Position(
          checkpoint.latestOffsets().map(OffsetsEntry::batchId).orElse(-1L),
          checkpoint.latestCommit().map(CommitEntry::batchId).orElse(-1L));
    }
  }

  /** How many of a layer's quarantine and sink tables lack batch {@code b}. */
  private static int tablesLacking(String layer, long b) throws Exception {
    return (lastBatch(layer, "-quarantine") < b ? 1 : 0) + (lastBatch(layer, "") < b ? 1 : 0);
  }

  /** The highest batch id of the layer's batch transaction ids in its table; -1 before any. */
  private static long lastBatch(String layer, String suffix) throws Exception {
    long last = -1;
    for (TableCommits.Commit c : TableCommits.of(dir.resolve(layer + suffix))) {
      for (SetTransaction txn : c.txns()) {
        if (txn.appId().equals(layer) || txn.appId().startsWith(layer + "@")) {
          last = Math.max(last, txn.version());
        }
      }
    }
    return last;
  }

  private static List<Long> ids(List<Map<String, Object>> rows, String column) {
    List<Long> ids = new ArrayList<>();
    rows.forEach(r -> ids.add((Long) r.get(column)));
    ids.sort(null);
    return ids;
  }

  /** The ids of a table source's quarantine rows, from their values as JSON. */
  private static List<Long> sourceRowIds(String table) throws Exception {
    List<Long> ids = new ArrayList<>();
    Pattern id = Pattern.compile("\"id\":(\\d+)");
    for (Map<String, Object> q : rows(table)) {
      Matcher m = id.matcher(String.valueOf(q.get("row")));
      assertThat(m.find()).as("quarantine row %s", q).isTrue();
      ids.add(Long.parseLong(m.group(1)));
    }
    ids.sort(null);
    return ids;
  }

  /** The table's rows, each by column name. */
  private static List<Map<String, Object>> rows(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      DeltaTable t = DeltaTable.open(store, TableOptions.defaults());
      Snapshot snapshot = t.snapshot();
      List<Map<String, Object>> rows = new ArrayList<>();
      for (DataFile f : snapshot.files()) {
        try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
          while (it.hasNext()) {
            Object[] values = it.next();
            Map<String, Object> row = new HashMap<>();
            for (int i = 0; i < values.length; i++) {
              row.put(snapshot.schema().fields().get(i).name(), values[i]);
            }
            rows.add(row);
          }
        }
      }
      return rows;
    }
  }
}
