package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.stateful.EventStream.Event;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential tests against real Spark (issue 11): each case runs a Tributary pipeline over
 * generated events in a real broker (available-now, a few offsets per batch), reads back the
 * batches the run really made from the checkpoint's offsets log, writes each batch as one
 * JSON-lines file (its records in partition, then offset order) and has Spark 4 + Delta 4 run the
 * same query over those files, one file per micro-batch; the two Delta tables must hold the same
 * rows. All cases share one Spark JVM (see {@link SparkReference}). Only queries whose result
 * Tributary already defines as Spark does belong here; see docs/STATEFUL.md for how to add one.
 */
class SparkDifferentialIT {
  private static final int PARTITIONS = 3;
  private static final int EVENTS = 360;
  private static final int PER_BATCH = 90;
  /** Spark's JSON timestamp pattern, and the one the files are written with (always 6 digits). */
  private static final String TS_PATTERN = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX";
  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern(TS_PATTERN).withZone(ZoneOffset.UTC);
  private static final String SPARK_SCHEMA = "event_id STRING, user_id STRING, event_type STRING,"
      + " event_ts TIMESTAMP, amount DECIMAL(10,2), quantity INT, _kafka_partition INT, _kafka_offset BIGINT";

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  /**
   * One query, as a Tributary pipeline fragment (what follows {@code format}) and as Spark: the
   * optional watermark/dedup step, SQL over the view {@code events}, and the output columns
   * compared (by name in our table, in this order in Spark's).
   */
  record Case(String name, String pipeline, Map<String, Object> spark, List<String> columns) {}

  static final List<Case> CASES = List.of(
      new Case("tumbling-complete", """
          aggregate:
            window: { column: event_ts, size: 5 minutes }
            group-by: [event_type]
            measures:
              events: count()
              quantities: count(quantity)
              amount: sum(amount)
              quantity: sum(quantity)
              min_amount: min(amount)
              max_amount: max(amount)
              last_ts: max(event_ts)
              avg_quantity: avg(quantity)
          output-mode: complete
          """,
          Map.of("outputMode", "complete", "sql", """
              SELECT window.start AS window_start, window.end AS window_end, event_type, count(*) AS events,
                count(quantity) AS quantities, sum(amount) AS amount, sum(quantity) AS quantity,
                min(amount) AS min_amount, max(amount) AS max_amount, max(event_ts) AS last_ts,
                avg(quantity) AS avg_quantity
              FROM events GROUP BY window(event_ts, '5 minutes'), event_type"""),
          List.of("window_start", "window_end", "event_type", "events", "quantities", "amount", "quantity",
              "min_amount", "max_amount", "last_ts", "avg_quantity")),
      new Case("dedup-append", """
          deduplicate: { keys: [event_id] }
          output-mode: append
          """,
          Map.of("outputMode", "append", "dropDuplicates", List.of("event_id"), "sql", "SELECT * FROM events"),
          List.of("event_id", "user_id", "event_type", "event_ts", "amount", "quantity", "_kafka_partition",
              "_kafka_offset")));

  @Test
  void tributaryAndSparkWriteTheSameTables() throws Exception {
    Map<String, List<Integer>> ourBatchSizes = new LinkedHashMap<>();
    Map<String, List<List<Object>>> ourRows = new LinkedHashMap<>();
    List<Map<String, Object>> sparkCases = new ArrayList<>();
    for (Case c : CASES) {
      String topic = broker.createTopic("spark-diff-" + c.name(), PARTITIONS);
      // each case its own stream: the generator's seed is the case's name
      List<Event> events = EventStream.generate(c.name().hashCode(), EVENTS, PARTITIONS, 120);
      Map<String, Event> byPosition = produce(topic, events);
      PipelineSpec spec = spec(c, topic);
      try (PipelineRun run = PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(),
          new ProgressLog(1000))) {
        run.run();
      }
      List<List<Event>> batches = batchesOf(spec, byPosition);
      assertThat(batches.stream().mapToInt(List::size).sum()).as("%s: every event in one batch", c.name())
          .isEqualTo(EVENTS);
      assertThat(batches.stream().filter(b -> !b.isEmpty()).count()).as("%s: batches", c.name())
          .isGreaterThanOrEqualTo(3);
      ourBatchSizes.put(c.name(), batches.stream().map(List::size).filter(n -> n > 0).toList());
      StatefulPlan plan = PipelineFactory.compile(spec).stateful().orElseThrow();
      ourRows.put(c.name(), ourTable(spec.sink().path(), plan.outputSchema().fieldNames(), c.columns()));

      Path input = Files.createDirectories(dir.resolve("spark/input/" + c.name()));
      writeBatchFiles(input, batches);
      Map<String, Object> sc = new LinkedHashMap<>(c.spark());
      sc.put("name", c.name());
      sc.put("input", input.toString());
      sc.put("columns", c.columns());
      sc.put("table", dir.resolve("spark/tables/" + c.name()).toString());
      sc.put("checkpoint", dir.resolve("spark/checkpoints/" + c.name()).toString());
      sparkCases.add(sc);
    }

    long sparkStarted = System.nanoTime();
    Path work = Files.createDirectories(dir.resolve("spark/work"));
    SparkReference.run(Map.of("schema", SPARK_SCHEMA, "timestampFormat", TS_PATTERN,
        "warehouse", work.resolve("warehouse").toString(), "cases", sparkCases), work);
    System.out.printf("Spark (classpath, JVM, %d cases): %d ms%n", CASES.size(),
        (System.nanoTime() - sparkStarted) / 1_000_000);

    List<String> mismatches = new ArrayList<>();
    for (Case c : CASES) {
      Path table = dir.resolve("spark/tables/" + c.name());
      List<Integer> sparkBatches = Files.readAllLines(Path.of(table + ".batches")).stream()
          .map(Integer::parseInt).filter(n -> n > 0).toList();
      assertThat(sparkBatches).as("%s: Spark's micro-batches (input rows) are Tributary's batches", c.name())
          .isEqualTo(ourBatchSizes.get(c.name()));
      List<List<Object>> spark;
      try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
        spark = new KernelReader(store).rows().stream().map(r -> Arrays.asList(r)).toList();
      }
      List<List<Object>> ours = ourRows.get(c.name());
      assertThat(ours).as("%s: a comparison of empty tables proves nothing", c.name()).isNotEmpty();
      System.out.printf("case %s: %d batches %s, %d rows (Tributary), %d rows (Spark)%n", c.name(),
          sparkBatches.size(), sparkBatches, ours.size(), spark.size());
      mismatch(c.name(), ours, spark).ifPresent(mismatches::add);
    }
    if (!mismatches.isEmpty()) {
      fail(String.join("\n\n", mismatches));
    }
  }

  private PipelineSpec spec(Case c, String topic) {
    String yaml = """
        pipeline: spark-diff-%1$s
        source:
          kafka:
            bootstrap-servers: %2$s
            topics: ["%3$s"]
            starting-offsets: earliest
            max-offsets-per-trigger: %4$d
        format:
          json:
            schema:
              event_id: string
              user_id: string
              event_type: string
              event_ts: timestamp
              amount: decimal(10,2)
              quantity: int
        %5$s\
        sink:
          delta:
            path: %6$s/tables/%1$s
        checkpoint: %6$s/checkpoints/%1$s
        trigger: { processing-time: 1s }
        """.formatted(c.name(), broker.bootstrapServers(), topic, PER_BATCH, c.pipeline(), dir.resolve("tributary"));
    return PipelineParser.parse(yaml, "spark-diff-" + c.name() + ".yaml", Map.of());
  }

  /**
   * Produces every event to its partition; returns "partition:offset" to the event there, with
   * its Kafka offset (the generator's offset is its index in the stream).
   */
  private Map<String, Event> produce(String topic, List<Event> events) {
    Map<String, Event> byPosition = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      int partition = p;
      List<Event> mine = events.stream().filter(e -> e.partition() == partition).toList();
      broker.send(topic, partition, mine.stream().map(SparkDifferentialIT::kafkaJson).toList());
      for (int o = 0; o < mine.size(); o++) {
        Event e = mine.get(o); // a fresh topic: offsets from 0, in send order
        byPosition.put(partition + ":" + o,
            new Event(e.id(), e.user(), e.type(), e.ts(), e.amount(), e.quantity(), o, partition));
      }
    }
    return byPosition;
  }

  private static String kafkaJson(Event e) {
    return "{\"event_id\":\"" + e.id() + "\",\"user_id\":\"" + e.user() + "\",\"event_type\":\"" + e.type()
        + "\",\"event_ts\":\"" + e.ts() + "\",\"amount\":" + (e.amount() == null ? "null" : e.amount().toPlainString())
        + ",\"quantity\":" + e.quantity() + "}";
  }

  /** The batches the run planned (its offsets log), each in partition, then offset order. */
  private static List<List<Event>> batchesOf(PipelineSpec spec, Map<String, Event> byPosition) throws Exception {
    List<List<Event>> batches = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      for (long b = 0; ; b++) {
        Optional<OffsetsEntry> entry = checkpoint.offsets(b);
        if (entry.isEmpty()) {
          return batches;
        }
        List<Event> batch = new ArrayList<>();
        entry.get().ranges().forEach((p, r) -> { // iterated in partition order
          for (long o = r.start(); o < r.end(); o++) {
            batch.add(byPosition.get(p.partition() + ":" + o));
          }
        });
        batches.add(batch);
      }
    }
  }

  /**
   * One JSON-lines file per batch (empty batches too), with the Kafka partition and offset as
   * columns; modification times one second apart, the order Spark's file source reads them in.
   */
  private static void writeBatchFiles(Path input, List<List<Event>> batches) throws Exception {
    Instant mtime = Instant.parse("2026-01-01T00:00:00Z");
    for (int b = 0; b < batches.size(); b++) {
      StringBuilder lines = new StringBuilder();
      for (Event e : batches.get(b)) {
        lines.append("{\"event_id\":\"").append(e.id()).append("\",\"user_id\":\"").append(e.user())
            .append("\",\"event_type\":\"").append(e.type()).append("\",\"event_ts\":\"").append(TS.format(e.ts()))
            .append("\",\"amount\":").append(e.amount() == null ? "null" : e.amount().toPlainString())
            .append(",\"quantity\":").append(e.quantity()).append(",\"_kafka_partition\":").append(e.partition())
            .append(",\"_kafka_offset\":").append(e.offset()).append("}\n");
      }
      Path file = input.resolve("batch-%05d.json".formatted(b));
      Files.writeString(file, lines);
      Files.setLastModifiedTime(file, FileTime.from(mtime.plusSeconds(b)));
    }
  }

  /** Our sink table's rows, projected on {@code columns} by name. */
  private static List<List<Object>> ourTable(String path, List<String> schema, List<String> columns) throws Exception {
    int[] at = columns.stream().mapToInt(schema::indexOf).toArray();
    assertThat(at).as("the compared columns %s are in our output %s", columns, schema).doesNotContain(-1);
    try (ObjectStore store = ObjectStores.open(path, null)) {
      List<List<Object>> out = new ArrayList<>();
      for (Object[] r : TableContents.rows(store)) {
        out.add(Arrays.stream(at).mapToObj(i -> r[i]).toList());
      }
      return out;
    }
  }

  /** Multiset equality: the rows only one side has (with their value types), if any. */
  private static Optional<String> mismatch(String name, List<List<Object>> ours, List<List<Object>> spark) {
    Map<List<Object>, Integer> balance = new HashMap<>();
    ours.forEach(r -> balance.merge(r, 1, Integer::sum));
    spark.forEach(r -> balance.merge(r, -1, Integer::sum));
    String onlyOurs = describe(balance, 1);
    String onlySpark = describe(balance, -1);
    if (onlyOurs.isEmpty() && onlySpark.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(String.format("%s: Tributary's table (%d rows) differs from Spark's (%d rows)%n"
        + "only in Tributary's:%n%s%nonly in Spark's:%n%s", name, ours.size(), spark.size(), onlyOurs, onlySpark));
  }

  private static String describe(Map<List<Object>, Integer> balance, int sign) {
    return balance.entrySet().stream().filter(e -> Integer.signum(e.getValue()) == sign)
        .map(e -> "  " + Math.abs(e.getValue()) + " x " + e.getKey().stream()
            .map(v -> v == null ? "null" : v + " (" + v.getClass().getSimpleName() + ")")
            .collect(Collectors.joining(", ", "[", "]")))
        .sorted().collect(Collectors.joining("\n"));
  }
}
