package dev.tributary.service.cli;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.demo.EmbeddedBroker;
import dev.tributary.service.demo.SampleEvents;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code tributary demo}: starts an embedded Kafka broker, produces sample order events (with
 * duplicates, late and malformed ones), runs the demo pipeline available-now into a local-disk
 * Delta table, and prints what happened and a sample of the result. Needs nothing but Java.
 */
final class DemoCommand {
  private static final String TOPIC = "demo-orders";
  private final PrintStream out;

  DemoCommand(PrintStream out) {
    this.out = out;
  }

  int run(CliArguments args) throws Exception {
    int events = Integer.parseInt(args.option("events").orElse("20000"));
    Path dir = Path.of(args.option("dir").orElse("demo-output")).toAbsolutePath();
    if (args.positional().equals(List.of("medallion"))) {
      return new MedallionDemo(out).run(events, dir);
    }
    if (args.positional().equals(List.of("avro"))) {
      return new AvroDemo(out, this).run(events, dir);
    }
    if (args.positional().equals(List.of("cdc"))) {
      return new CdcDemo(out).run(Integer.parseInt(args.option("events").orElse("3000")), dir);
    }
    if (args.positional().equals(List.of("attribution"))) {
      return new AttributionDemo(out)
          .run(Integer.parseInt(args.option("events").orElse("6000")), dir);
    }
    if (!args.positional().isEmpty()) {
      throw new CliArguments.UsageException(
          "unknown demo '"
              + String.join(" ", args.positional())
              + "'; the variants are: tributary demo, tributary demo avro, tributary demo medallion,"
              + " tributary demo cdc, tributary demo attribution");
    }
    prepare(dir);
    out.println("Tributary demo: output in " + dir);
    out.println("1. Starting an embedded Kafka broker (KRaft)...");
    try (EmbeddedBroker broker = EmbeddedBroker.start(3, TOPIC)) {
      SampleEvents.Batch sample =
          SampleEvents.generate(events, Instant.parse("2026-11-01T08:00:00Z"), 7);
      produce(broker.bootstrapServers(), TOPIC, sample);
      out.printf(
          "2. Produced %,d events to topic %s (3 partitions): %s%n",
          events, TOPIC, sample.describe());

      String yaml = resource("demo/orders-demo.yaml");
      Files.writeString(dir.resolve("orders-demo.yaml"), yaml);
      PipelineSpec spec =
          PipelineParser.parse(
              yaml,
              dir.resolve("orders-demo.yaml").toString(),
              Map.of("KAFKA_BOOTSTRAP", broker.bootstrapServers(), "DEMO_DIR", dir.toString()));
      CompiledPipeline pipeline = PipelineFactory.compile(spec);
      out.println(
          "3. Running pipeline "
              + spec.id()
              + " (available-now, at most "
              + spec.kafkaSource().orElseThrow().maxOffsetsPerTrigger().orElse(0)
              + " offsets per batch); it lands every record it can parse, late orders and"
              + " duplicates included:");
      ProgressLog progress = new ProgressLog(1000);
      progress.addListener(
          p ->
              out.printf(
                  "   batch %d: %,d records in, %,d rows out, %,d quarantined, %d ms%n",
                  p.batchId(), p.inputRows(), p.outputRows(), p.quarantinedRows(), p.durationMs()));
      try (PipelineRun run = PipelineRun.open(pipeline, new TriggerSpec.AvailableNow(), progress)) {
        run.run();
      }
      summarize(
          spec,
          pipeline.outputSchema(),
          progress.last(1000),
          v -> new String(v, StandardCharsets.UTF_8));
      runHourly(broker.bootstrapServers(), dir);
      return 0;
    }
  }

  /** The stateful pipeline over the same topic: dedup, watermark, hourly windows per customer. */
  private void runHourly(String bootstrap, Path dir) throws Exception {
    String yaml = resource("demo/orders-hourly-demo.yaml");
    Files.writeString(dir.resolve("orders-hourly-demo.yaml"), yaml);
    PipelineSpec spec =
        PipelineParser.parse(
            yaml,
            dir.resolve("orders-hourly-demo.yaml").toString(),
            Map.of("KAFKA_BOOTSTRAP", bootstrap, "DEMO_DIR", dir.toString()));
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    out.println(
        "\n5. Running pipeline "
            + spec.id()
            + " over the same topic: drop duplicates by (order_id,"
            + " event_time), watermark 15 minutes, 1-hour windows per customer, append mode:");
    ProgressLog progress = new ProgressLog(1000);
    progress.addListener(
        p ->
            out.printf(
                "   batch %d: %,d records in, %,d window rows out, %,d late, %d ms%n",
                p.batchId(), p.inputRows(), p.outputRows(), p.lateRows(), p.durationMs()));
    try (PipelineRun run = PipelineRun.open(pipeline, new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    List<BatchProgress> batches = progress.last(1000);
    BatchProgress last = batches.get(batches.size() - 1);
    // Each part counted where it ends up: the tables, or the engine's count of what it dropped.
    long read = batches.stream().mapToLong(BatchProgress::inputRows).sum();
    long duplicates =
        batches.stream()
            .mapToLong(b -> b.state().getOrDefault("dedup.duplicatesDropped", 0L))
            .sum();
    long late = DemoTables.rows(spec.lateEvents().orElseThrow().path());
    long quarantined = DemoTables.rows(spec.quarantine().path());
    long filtered = batches.stream().mapToLong(BatchProgress::filteredRows).sum();
    long aggregated = read - duplicates - late - quarantined - filtered;
    long inWindowsWritten = DemoTables.sum(spec.sink().path(), "orders");
    out.printf(
        "6. Done in %d batches: %,d records read = %,d aggregated + %,d duplicates dropped"
            + " + %,d late (in %s) + %,d quarantined + %,d filtered out.%n",
        batches.size(),
        read,
        aggregated,
        duplicates,
        late,
        spec.lateEvents().orElseThrow().path(),
        quarantined,
        filtered);
    out.printf(
        "   The %,d aggregated orders: %,d counted in the %,d window rows written, %,d in windows"
            + " still open.%n",
        aggregated,
        inWindowsWritten,
        DemoTables.rows(spec.sink().path()),
        aggregated - inWindowsWritten);
    out.println(
        "   Windows that end after the final watermark ("
            + last.watermark()
            + ") stay in state until"
            + " newer events move the watermark, as in Spark's append mode.");
    try (ObjectStore store = ObjectStores.open(spec.sink().path(), null)) {
      Snapshot table = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      out.printf(
          "%nDelta table %s: version %d, %d files%n",
          spec.sink().path(), table.version(), table.fileCount());
      printSample(store, table, pipeline.outputSchema(), 8);
    }
  }

  /**
   * Step 4: the totals, the table's state and a sample of it, and of the quarantine ({@code value}
   * renders its values).
   */
  void summarize(
      PipelineSpec spec,
      StructType schema,
      List<BatchProgress> batches,
      Function<byte[], String> value)
      throws IOException {
    // Read and filtered as the engine counted them, the rest as the tables hold them: the three
    // add up to the records read, each record in exactly one place.
    long read = batches.stream().mapToLong(BatchProgress::inputRows).sum();
    long landed = DemoTables.rows(spec.sink().path());
    long quarantined = DemoTables.rows(spec.quarantine().path());
    long filtered = batches.stream().mapToLong(BatchProgress::filteredRows).sum();
    out.printf(
        "4. Done in %d batches: %,d records read = %,d rows in the table + %,d quarantined"
            + " + %,d filtered out.%n",
        batches.size(), read, landed, quarantined, filtered);
    if (landed + quarantined + filtered != read) {
      out.printf(
          "   These do not add up: %,d records are unaccounted for.%n",
          read - landed - quarantined - filtered);
    }
    try (ObjectStore store = ObjectStores.open(spec.sink().path(), null);
        ObjectStore qstore = ObjectStores.open(spec.quarantine().path(), null)) {
      Snapshot table = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      var batchKey =
          table.state().transactions().values().stream()
              .filter(t -> t.appId().startsWith(spec.id() + "@"))
              .findFirst();
      out.printf(
          "%nDelta table %s: version %d, %d files, %,d bytes; txn(%s) = batch %d%n",
          spec.sink().path(),
          table.version(),
          table.fileCount(),
          table.totalBytes(),
          batchKey.map(t -> t.appId()).orElse(spec.id()),
          batchKey.map(t -> t.version()).orElse(-1L));
      printSample(store, table, schema, 5);
      Snapshot q = DeltaTable.open(qstore, TableOptions.defaults()).snapshot();
      out.printf(
          "%nQuarantine table %s (%d files): a sample of the records that failed to parse:%n",
          spec.quarantine().path(), q.fileCount());
      int shown = 0;
      for (DataFile f : q.files()) {
        for (Object[] row : DataFiles.readAll(qstore, f, q.schema())) {
          if (shown++ >= 3) {
            break;
          }
          out.printf(
              "  %s/%s@%s: %s%n      value: %s%n",
              row[0], row[1], row[2], row[6], value.apply((byte[]) row[5]));
        }
      }
    }
    out.println(
        "\nRead the table with any Delta reader, e.g. DuckDB: SELECT * FROM delta_scan('"
            + spec.sink().path()
            + "');");
  }

  private void printSample(ObjectStore store, Snapshot table, StructType schema, int n)
      throws IOException {
    out.println("  " + String.join(" | ", schema.fieldNames()));
    int shown = 0;
    for (DataFile f : table.files()) {
      for (Object[] row : DataFiles.readAll(store, f, table.schema())) {
        if (shown++ >= n) {
          return;
        }
        out.println("  " + String.join(" | ", Arrays.stream(row).map(String::valueOf).toList()));
      }
    }
  }

  static void produce(String bootstrap, String topic, SampleEvents.Batch sample) throws Exception {
    produce(bootstrap, topic, sample.values());
  }

  /** Sends {@code values} round-robin over the topic's 3 partitions, without keys. */
  static void produce(String bootstrap, String topic, List<byte[]> values) throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.LINGER_MS_CONFIG,
            10);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      int i = 0;
      List<Future<?>> sent = new ArrayList<>();
      for (byte[] value : values) {
        sent.add(producer.send(new ProducerRecord<>(topic, i++ % 3, null, value)));
      }
      producer.flush();
      for (var f : sent) {
        f.get(); // a record that did not make it fails the demo, never silently shrinks it
      }
    }
  }

  static String resource(String name) throws IOException {
    try (InputStream in = DemoCommand.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Empties a previous demo's output; refuses to touch a non-empty folder that is not one. */
  static void prepare(Path dir) throws IOException {
    Path marker = dir.resolve(".tributary-demo");
    if (Files.isDirectory(dir)) {
      try (Stream<Path> entries = Files.list(dir)) {
        if (entries.findAny().isPresent() && !Files.exists(marker)) {
          throw new CliArguments.UsageException(
              "--dir "
                  + dir
                  + " is not empty and was not made by the demo;"
                  + " choose an empty or new folder");
        }
      }
      deleteRecursively(dir);
    }
    Files.createDirectories(dir);
    Files.writeString(marker, "made by tributary demo; deleted by the next demo run\n");
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      List<Path> all = new ArrayList<>(paths.sorted(Comparator.reverseOrder()).toList());
      for (Path p : all) {
        Files.delete(p);
      }
    }
  }
}
