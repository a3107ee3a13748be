package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.cli.Main;
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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once through three layers under kill -9 (issue #12, item 5): bronze (Kafka to Delta),
 * silver (bronze to Delta with a filter and a derived column) and gold (silver to Delta, a count
 * per hour, tumbling window, append mode), each declared in YAML and run by the command line
 * ({@code run --pipeline <layer>.yaml --available-now}) in a child JVM halted at a crash point
 * (the same as kill -9). Each round produces fresh records, then for each layer in turn runs it
 * halted at that layer's point of the round and then runs it to the end, so the next layer has
 * fresh input: every halted run plans a new batch and so reaches its point (asserted). A final
 * drain of each layer follows; gold must then equal the batch computation over bronze.
 */
class MedallionCrashIT {
  /** A representative set per layer (every point is covered by ExactlyOnceCrashIT / DeltaSourceCrashIT). */
  private static final String[][] POINTS = {
    {CrashPoints.AFTER_OFFSETS_LOG, CrashPoints.AFTER_PLAN, CrashPoints.AFTER_DATA_FILES},
    {CrashPoints.MID_BATCH, CrashPoints.AFTER_SINK_COMMIT, CrashPoints.AFTER_STATE_COMMIT},
    {CrashPoints.AFTER_SINK_COMMIT, CrashPoints.AFTER_COMMITS_LOG, CrashPoints.MID_BATCH},
  };
  private static final String[] LAYERS = {"bronze", "silver", "gold"};
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final int RECORDS_PER_ROUND = 120;

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;
  private long produced;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaBrokerProcess.start(dir.resolve("broker"));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** Record {@code id} happens 10 minutes after record {@code id - 1}: six per hour, in order. */
  private static Instant at(long id) {
    return T0.plus(Duration.ofMinutes(10 * id));
  }

  private void produce(int count) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++, produced++) {
        String value = "{\"id\":%d,\"amount\":%d,\"at\":%d}".formatted(produced, produced % 4, at(produced).toEpochMilli());
        producer.send(new ProducerRecord<>("events", 0, null, value.getBytes(StandardCharsets.UTF_8))).get();
      }
    }
  }

  private void writePipelines() throws Exception {
    Files.writeString(dir.resolve("bronze.yaml"), """
        pipeline: bronze
        source:
          kafka:
            bootstrap-servers: %2$s
            topics: [events]
            max-offsets-per-trigger: 40
        format:
          json:
            schema: { id: long, amount: long, at: timestamp }
        sink:
          delta: { path: %1$s/bronze }
        checkpoint: %1$s/chk/bronze
        """.formatted(dir, broker.bootstrapServers()));
    Files.writeString(dir.resolve("silver.yaml"), """
        pipeline: silver
        source:
          delta: { path: %1$s/bronze, max-files-per-trigger: 1 }
        transform:
          - filter: "amount > 0"
          - derive: { amount_times_two: "amount * 2" }
        sink:
          delta: { path: %1$s/silver }
        checkpoint: %1$s/chk/silver
        """.formatted(dir));
    Files.writeString(dir.resolve("gold.yaml"), """
        pipeline: gold
        source:
          delta: { path: %1$s/silver, max-files-per-trigger: 1 }
        watermark: { column: at, delay: 1 minute }
        aggregate:
          window: { column: at, size: 1 hour }
          measures: { n: count() }
        output-mode: append
        sink:
          delta: { path: %1$s/gold }
        checkpoint: %1$s/chk/gold
        """.formatted(dir));
  }

  private void run(String layer, String crashAt, String logName) throws Exception {
    List<String> jvm = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    if (crashAt != null) {
      jvm.add("-Dtributary.test.crash-at=" + crashAt);
    }
    Path log = dir.resolve(logName + ".log");
    Process child = ChildJvm.start(jvm, Main.class.getName(),
        List.of("run", "--pipeline", dir.resolve(layer + ".yaml").toString(), "--available-now"), log, dir);
    boolean exited = child.waitFor(120, TimeUnit.SECONDS);
    if (!exited) {
      child.destroyForcibly().waitFor();
    }
    assertThat(exited).as("%s run %s finished; log:%n%s", layer, logName, Files.readString(log)).isTrue();
    if (crashAt == null) {
      assertThat(child.exitValue()).as("%s drained; log:%n%s", layer, Files.readString(log)).isZero();
    } else {
      assertThat(child.exitValue()).as("%s halted at %s; log:%n%s", layer, crashAt, Files.readString(log))
          .isEqualTo(137);
      assertThat(Files.readString(log)).contains("crash point " + crashAt + " reached");
    }
  }

  @Test
  void goldEqualsTheBatchComputationOverBronzeAfterHaltsInEveryLayer() throws Exception {
    broker.createTopic("events", 1);
    writePipelines();
    Random random = new Random(20261201L);
    for (int round = 0; round < POINTS[0].length; round++) {
      produce(RECORDS_PER_ROUND);
      for (int layer = 0; layer < LAYERS.length; layer++) {
        String point = POINTS[layer][round];
        int occurrence = point.equals(CrashPoints.MID_BATCH) ? 1 + random.nextInt(10) : 1;
        run(LAYERS[layer], point + ":" + occurrence, LAYERS[layer] + "-halt-" + round);
        run(LAYERS[layer], null, LAYERS[layer] + "-drain-" + round);
      }
    }
    produce(RECORDS_PER_ROUND);
    for (String layer : LAYERS) {
      run(layer, null, layer + "-final");
    }

    // The batch computation over bronze: every produced record once, then silver's filter, then
    // the count per hour of the windows the final watermark (latest event time - 1 minute) closed.
    List<Object[]> bronze = rows("bronze");
    List<Long> bronzeIds = new ArrayList<>();
    Map<Instant, Long> expected = new TreeMap<>();
    Instant latest = Instant.MIN;
    List<Instant> silverTimes = new ArrayList<>();
    for (Object[] row : bronze) {
      bronzeIds.add((Long) row[0]);
      if ((Long) row[1] > 0) {
        silverTimes.add((Instant) row[2]);
        latest = latest.isAfter((Instant) row[2]) ? latest : (Instant) row[2];
      }
    }
    bronzeIds.sort(null);
    assertThat(bronzeIds).as("every produced record once in bronze")
        .isEqualTo(java.util.stream.LongStream.range(0, produced).boxed().toList());
    Instant watermark = latest.minus(Duration.ofMinutes(1));
    for (Instant t : silverTimes) {
      Instant start = T0.plus(Duration.ofHours(Duration.between(T0, t).toHours()));
      if (!start.plus(Duration.ofHours(1)).isAfter(watermark)) {
        expected.merge(start, 1L, Long::sum);
      }
    }

    List<Long> silverIds = new ArrayList<>();
    for (Object[] row : rows("silver")) {
      assertThat((Long) row[1]).isPositive();
      assertThat(row[row.length - 1]).isEqualTo((Long) row[1] * 2);
      silverIds.add((Long) row[0]);
    }
    silverIds.sort(null);
    assertThat(silverIds).as("silver: the filtered bronze rows, once each")
        .isEqualTo(bronzeIds.stream().filter(id -> id % 4 != 0).toList());

    Map<Instant, Long> gold = new TreeMap<>();
    for (Object[] row : rows("gold")) {
      assertThat(gold.put((Instant) row[0], (Long) row[2])).as("window %s written once", row[0]).isNull();
    }
    assertThat(gold).as("gold equals the batch computation over bronze").isEqualTo(expected).isNotEmpty();
  }

  private static List<Object[]> rows(String table) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      DeltaTable t = DeltaTable.open(store, TableOptions.defaults());
      Snapshot snapshot = t.snapshot();
      List<Object[]> rows = new ArrayList<>();
      for (DataFile f : snapshot.files()) {
        try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
          it.forEachRemaining(rows::add);
        }
      }
      return rows;
    }
  }
}
