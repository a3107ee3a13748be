package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.backfill.Backfill;
import dev.tributary.service.backfill.BackfillPlan;
import dev.tributary.service.backfill.BackfillRange;
import dev.tributary.service.backfill.ReplaceSummary;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.interop.KernelReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;

/**
 * For {@link SparkInteropIT}, issue 28's reprocessing test: a month of hourly events landed by a
 * pipeline whose derive is wrong ({@code amount * 10}), then one day of it recomputed with the fix
 * ({@code amount * 100}) and swapped into the live table by {@code backfill --replace} while the
 * live pipeline keeps running and appends today's events. The table then holds every event once:
 * the day's rows with the fix, every other row as the live run wrote it (the same files), and Spark
 * 4 + Delta 4 and Delta Kernel read exactly that.
 */
final class ReplacedTableForSpark {
  private static final int DAYS = 30;
  private static final int MONTH = DAYS * 24; // one event an hour
  private static final int TODAY = 12; // appended by the live run during the swap
  private static final Instant START =
      Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(DAYS));
  private static final Instant DAY_FROM = START.plus(Duration.ofDays(14));
  private static final Instant DAY_TO = START.plus(Duration.ofDays(15));

  private static final ObjectMapper JSON = new ObjectMapper();

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path out;
  private Path table;
  private ReplaceSummary summary;
  private List<String> outsideFilesBefore;
  private List<String> outsideFilesAfter;

  ReplacedTableForSpark(Path dir) {
    this.dir = dir;
  }

  /** Event {@code i}'s time: the month's events an hour apart, then today's a minute apart. */
  private static Instant eventTime(int i) {
    return i < MONTH
        ? START.plus(Duration.ofHours(i))
        : Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofMinutes(i - MONTH));
  }

  private static boolean inDay(int i) {
    return !eventTime(i).isBefore(DAY_FROM) && eventTime(i).isBefore(DAY_TO);
  }

  private PipelineSpec spec(String topic, String derive) {
    return PipelineParser.parse(
        """
        pipeline: replaced
        source:
          kafka: { bootstrap-servers: %s, topics: [%s], max-offsets-per-trigger: 100 }
        format:
          json: { schema: { id: long, amount: long, event_ts: timestamp } }
        transform:
          - derive: { amount_x: "%s" }
        watermark: { column: event_ts, delay: 10 minutes }
        sink:
          delta: { path: "%s" }
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, derive, table, dir),
        "replaced.yaml",
        Map.of());
  }

  /** Lands the month, replaces the day while the live run appends today; returns the Spark read. */
  Map<String, String> prepare() throws Exception {
    table = dir.resolve("lake/orders");
    // A month of event times: with the broker's default retention (7 days, judged by the records'
    // timestamps once a segment rolls) the first weeks would be deleted, and the backfill would
    // rightly refuse the range as no longer held. Users backfilling a month keep a month.
    String topic = "replaced-spark-" + UUID.randomUUID().toString().substring(0, 8);
    try (Admin admin = broker.admin()) {
      admin
          .createTopics(
              List.of(new NewTopic(topic, 2, (short) 1).configs(Map.of("retention.ms", "-1"))))
          .all()
          .get();
    }
    produce(topic, 0, MONTH);
    PipelineSpec live = spec(topic, "amount * 10");
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(live), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
    outsideFilesBefore = outsideFiles();

    AtomicReference<Throwable> liveFailure = new AtomicReference<>();
    try (PipelineRun running =
        PipelineRun.open(
            PipelineFactory.compile(live),
            new TriggerSpec.ProcessingTime(Duration.ofMillis(200)),
            new ProgressLog(10))) {
      Thread liveThread =
          new Thread(
              () -> {
                try {
                  running.run();
                } catch (Throwable t) {
                  liveFailure.set(t);
                }
              },
              "live-replaced");
      liveThread.start();
      produce(topic, MONTH, MONTH + TODAY);
      summary =
          Backfill.replace(
              BackfillPlan.replace(
                  spec(topic, "amount * 100"),
                  BackfillRange.parse(DAY_FROM.toString(), DAY_TO.toString())),
              new ProgressLog(10),
              r -> {});
      Awaitility.await("the live run appended today's events")
          .atMost(Duration.ofMinutes(2))
          .until(() -> ids().size() == MONTH + TODAY || liveFailure.get() != null);
      running.stop();
      liveThread.join(60_000);
    }
    assertThat(liveFailure.get()).as("the live run").isNull();
    outsideFilesAfter = outsideFiles();
    out = Files.createDirectories(dir.resolve("spark")).resolve("rows.jsonl");
    return Map.of("path", table.toString(), "out", out.toString());
  }

  /** What the swap did, what Spark read and what Kernel reads. */
  void check() throws Exception {
    assertThat(summary.alreadySwapped()).isFalse();
    assertThat(summary.swap().orElseThrow().rowsAdded()).isEqualTo(24);
    assertThat(summary.swap().orElseThrow().rowsRemoved()).isEqualTo(24);
    assertThat(outsideFilesAfter)
        .as("files holding no row of the day are the live run's, untouched")
        .containsAll(outsideFilesBefore);

    Map<Long, Long> expected = new TreeMap<>();
    for (int i = 0; i < MONTH + TODAY; i++) {
      expected.put((long) i, i * (inDay(i) ? 100L : 10L));
    }
    assertThat(ours()).as("our read").isEqualTo(expected);

    Map<Long, Long> spark = new TreeMap<>();
    List<String> rows = Files.readAllLines(out);
    for (String row : rows) {
      JsonNode json = JSON.readTree(row);
      spark.put(json.get("id").asLong(), json.get("amount_x").asLong());
    }
    assertThat(rows).as("Spark reads each event once").hasSize(MONTH + TODAY);
    assertThat(spark).as("Spark's read").isEqualTo(expected);

    Map<Long, Long> kernel = new TreeMap<>();
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      List<String> columns = new KernelReader(store).columnNames();
      int id = columns.indexOf("id");
      int amountX = columns.indexOf("amount_x");
      List<Object[]> kernelRows = new KernelReader(store).rows();
      assertThat(kernelRows).as("Kernel reads each event once").hasSize(MONTH + TODAY);
      for (Object[] r : kernelRows) {
        kernel.put((Long) r[id], (Long) r[amountX]);
      }
    }
    assertThat(kernel).as("Kernel's read").isEqualTo(expected);
  }

  private Map<Long, Long> ours() throws Exception {
    Map<Long, Long> byId = new TreeMap<>();
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      for (Object[] row : TableContents.rows(store)) {
        // columns: id, amount, event_ts, amount_x, _kafka_*
        assertThat(byId.put((Long) row[0], (Long) row[3])).as("id %s once", row[0]).isNull();
      }
    }
    return byId;
  }

  private List<Long> ids() throws Exception {
    return TableContents.ids(table);
  }

  /** The live table's files whose event times all lie outside the day, by their statistics. */
  private List<String> outsideFiles() throws Exception {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().files().stream()
          .filter(
              f -> {
                Instant min = (Instant) f.stats().minValues().get("event_ts");
                Instant max = (Instant) f.stats().maxValues().get("event_ts");
                return min != null
                    && max != null
                    && (max.isBefore(DAY_FROM.minusMillis(1)) || !min.isBefore(DAY_TO));
              })
          .map(DataFile::path)
          .toList();
    }
  }

  /** Events {@code [from, to)}, each with its event time as its Kafka timestamp. */
  private void produce(String topic, int from, int to) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = from; i < to; i++) {
        Instant t = eventTime(i);
        String value = "{\"id\":%d,\"amount\":%d,\"event_ts\":\"%s\"}".formatted(i, i, t);
        producer.send(
            new ProducerRecord<>(
                topic, i % 2, t.toEpochMilli(), null, value.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }
}
