package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

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
 * its commit: the quarantine table's writer first (occurrence 1), then the sink's (occurrence 2,
 * used here: the sink's Parquet files exist, uncommitted); {@code after-quarantine-commit} after
 * the quarantine table's commit, which every batch makes (with the batch's transaction id, rows or
 * not; bronze, silver and gold each do quarantine rows here); {@code after-sink-commit}; {@code
 * after-state-commit} after the processor's state commit: gold's state store; in the stateless
 * bronze and silver the step commits nothing, so the halt leaves the same durable state as {@code
 * after-sink-commit} but is still reached and replayed from; {@code after-commits-log}. So all 24
 * (layer, point) pairs are run: round {@code r} halts each layer at point {@code r}. No pair is
 * unreachable.
 *
 * <p>Each round produces fresh records, then for each layer in turn runs it halted at the round's
 * point and then runs it to the end, so the next layer has fresh input: every halted run plans a
 * new batch and so reaches its point (asserted from its log and exit code 137). A final drain of
 * each layer follows; then bronze holds every well-formed produced record once (and its quarantine
 * every malformed one once), and silver and gold equal the batch computation over bronze, their
 * quarantine tables holding exactly the rows they set aside, once each.
 */
class MedallionCrashIT {
  /** Every point, in batch order; round r halts every layer at POINTS[r]. */
  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_STATE_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG,
  };

  private static final String[] LAYERS = {"bronze", "silver", "gold"};
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int RECORDS_PER_ROUND = 60;

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
    for (int round = 0; round < POINTS.length; round++) {
      produce(RECORDS_PER_ROUND);
      for (String layer : LAYERS) {
        String point = POINTS[round];
        int occurrence =
            switch (point) {
              case CrashPoints.MID_BATCH -> 1 + random.nextInt(10);
              case CrashPoints.AFTER_DATA_FILES ->
                  2; // the sink's files; 1 is the quarantine table's
              default -> 1;
            };
        run(layer, point + ":" + occurrence, layer + "-halt-" + round);
        run(layer, null, layer + "-drain-" + round);
      }
    }
    produce(RECORDS_PER_ROUND);
    for (String layer : LAYERS) {
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
