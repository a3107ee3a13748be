package dev.tributary.service.cli;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.demo.ChangeEvents;
import dev.tributary.service.demo.EmbeddedBroker;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code tributary demo cdc}: a Debezium-style change stream of a {@code customers} table ({@link
 * ChangeEvents}: snapshot, inserts, updates, deletes with tombstones, replays after a connector
 * restart) landed by two pipelines of {@code demo/cdc/}: the current state ({@code write: upsert})
 * and the SCD2 history ({@code history: scd2}). Both tables are read back and compared with what
 * the generator's database went through; the demo fails (exit 1) when either differs. Prints a few
 * customers' histories.
 */
final class CdcDemo {
  static final String TOPIC = "shop.public.customers";
  private static final int SHOWN_HISTORIES = 3;
  private final PrintStream out;

  CdcDemo(PrintStream out) {
    this.out = out;
  }

  int run(int events, Path dir) throws Exception {
    DemoCommand.prepare(dir);
    out.println("Tributary CDC demo: output in " + dir);
    out.println("1. Starting an embedded Kafka broker (KRaft)...");
    try (EmbeddedBroker broker = EmbeddedBroker.start(ChangeEvents.PARTITIONS, TOPIC)) {
      ChangeEvents.Stream stream =
          ChangeEvents.generate(events, Instant.parse("2026-11-01T08:00:00Z"), 11);
      produce(broker.bootstrapServers(), stream.changes());
      out.printf(
          "2. Produced %,d Debezium change events of table customers to topic %s (keyed, %d"
              + " partitions): %s%n",
          stream.changes().size(), TOPIC, ChangeEvents.PARTITIONS, stream.describe());
      Map<String, String> env =
          Map.of("KAFKA_BOOTSTRAP", broker.bootstrapServers(), "DEMO_DIR", dir.toString());

      PipelineSpec current = runPipeline(3, "current", env, dir);
      List<Map<String, Object>> rows = rows(current.sink().path());
      boolean currentOk = expectedCurrent(stream).equals(showCurrent(rows));
      out.printf(
          "   %s: %,d customers; equal to the source table at the end: %s%n",
          current.sink().path(), rows.size(), currentOk ? "yes" : "NO");

      PipelineSpec history = runPipeline(4, "history", env, dir);
      List<Map<String, Object>> versions = rows(history.sink().path());
      boolean historyOk = expectedHistory(stream).equals(showHistory(versions));
      out.printf(
          "   %s: %,d versions (%,d current); every version the source table went through: %s%n",
          history.sink().path(),
          versions.size(),
          versions.stream().filter(v -> Boolean.TRUE.equals(v.get("_is_current"))).count(),
          historyOk ? "yes" : "NO");

      printHistories(stream, versions);
      if (!currentOk || !historyOk) {
        out.println("\nThe tables differ from the source table: this is a bug, please report it.");
        return 1;
      }
      out.println(
          "\nReplayed events were ignored (older or duplicate by _source_ts); deletes removed the"
              + " current row and closed the history's. Run the pipelines again and they continue"
              + " from their checkpoints.");
      return 0;
    }
  }

  private PipelineSpec runPipeline(int step, String name, Map<String, String> env, Path dir)
      throws Exception {
    String yaml = DemoCommand.resource("demo/cdc/" + name + ".yaml");
    Path file = dir.resolve("customers-" + name + ".yaml");
    Files.writeString(file, yaml);
    PipelineSpec spec = PipelineParser.parse(yaml, file.toString(), env);
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    out.printf("%d. Running pipeline %s (available-now), from %s:%n", step, spec.id(), file);
    out.println("   " + MedallionDemo.describe(MedallionDemo.runAvailableNow(pipeline)));
    return spec;
  }

  /**
   * Keys' histories: two current customers and a deleted one, each with about four versions (short
   * enough to read, long enough to show updates).
   */
  private void printHistories(ChangeEvents.Stream stream, List<Map<String, Object>> versions) {
    List<Long> keys = new ArrayList<>(stream.history().keySet());
    keys.sort(
        Comparator.comparingInt((Long id) -> Math.abs(stream.history().get(id).size() - 4))
            .thenComparing(id -> id));
    Set<Long> shown = new TreeSet<>();
    keys.stream()
        .filter(id -> stream.database().containsKey(id))
        .limit(SHOWN_HISTORIES - 1)
        .forEach(shown::add);
    keys.stream()
        .filter(id -> !stream.database().containsKey(id))
        .findFirst()
        .ifPresent(shown::add);
    out.println("\n5. Histories of customers " + shown + ", as the history table holds them:");
    for (long id : shown) {
      out.printf("   customer %d%s:%n", id, stream.database().containsKey(id) ? "" : " (deleted)");
      versions.stream()
          .filter(v -> Long.valueOf(id).equals(v.get("customer_id")))
          .sorted(Comparator.comparing(v -> (Instant) v.get("_valid_from")))
          .forEach(
              v ->
                  out.printf(
                      "     %-8s %-8s  from %s  to %-20s%s%n",
                      v.get("name"),
                      v.get("tier"),
                      v.get("_valid_from"),
                      v.get("_valid_to") == null ? "-" : v.get("_valid_to"),
                      Boolean.TRUE.equals(v.get("_is_current")) ? "  current" : ""));
    }
  }

  private static void produce(String bootstrap, List<ChangeEvents.Change> changes)
      throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            // one request at a time: a key's events must keep their order in the partition
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
            1,
            ProducerConfig.LINGER_MS_CONFIG,
            10);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      List<Future<?>> sent = new ArrayList<>();
      for (ChangeEvents.Change c : changes) {
        sent.add(
            producer.send(
                new ProducerRecord<>(TOPIC, c.partition(), c.timestampMs(), c.key(), c.value())));
      }
      producer.flush();
      for (Future<?> f : sent) {
        f.get();
      }
    }
  }

  /** Every row of the table at {@code path}, as column name → value. */
  static List<Map<String, Object>> rows(String path) throws IOException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(path, null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      List<String> names = snapshot.schema().fieldNames();
      for (DataFile f : snapshot.files()) {
        for (Object[] row : DataFiles.readAll(store, f, snapshot.schema())) {
          Map<String, Object> named = new TreeMap<>();
          for (int i = 0; i < names.size(); i++) {
            named.put(names.get(i), row[i]);
          }
          rows.add(named);
        }
      }
    }
    return rows;
  }

  /** The source table's rows at the end as "id name tier". */
  static TreeSet<String> expectedCurrent(ChangeEvents.Stream stream) {
    TreeSet<String> out = new TreeSet<>();
    stream.database().values().forEach(r -> out.add(show(r)));
    return out;
  }

  static TreeSet<String> showCurrent(List<Map<String, Object>> rows) {
    TreeSet<String> out = new TreeSet<>();
    rows.forEach(r -> out.add(r.get("customer_id") + " " + r.get("name") + " " + r.get("tier")));
    return out;
  }

  /** Every version as "id name tier [from, to)", times as instants. */
  static TreeSet<String> expectedHistory(ChangeEvents.Stream stream) {
    TreeSet<String> out = new TreeSet<>();
    stream
        .history()
        .values()
        .forEach(
            versions ->
                versions.forEach(
                    v ->
                        out.add(
                            show(v.row())
                                + " ["
                                + Instant.ofEpochMilli(v.fromMs())
                                + ", "
                                + (v.toMs() == null ? "-" : Instant.ofEpochMilli(v.toMs()))
                                + ")")));
    return out;
  }

  /** The history table's rows as {@link #expectedHistory}; "!" marks an inconsistent flag. */
  static TreeSet<String> showHistory(List<Map<String, Object>> rows) {
    TreeSet<String> out = new TreeSet<>();
    for (Map<String, Object> r : rows) {
      Object to = r.get("_valid_to");
      boolean consistent = Boolean.TRUE.equals(r.get("_is_current")) == (to == null);
      out.add(
          r.get("customer_id")
              + " "
              + r.get("name")
              + " "
              + r.get("tier")
              + " ["
              + r.get("_valid_from")
              + ", "
              + (to == null ? "-" : to)
              + ")"
              + (consistent ? "" : "!"));
    }
    return out;
  }

  private static String show(ChangeEvents.Row r) {
    return r.customerId() + " " + r.name() + " " + r.tier();
  }
}
