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
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code tributary demo medallion}: the demo's order events through three layers, each a pipeline
 * of {@code pipelines/medallion/} run available-now: Kafka → bronze (raw), bronze → silver
 * (cleaned, joined with a customers dimension table the demo writes), silver → gold (10-minute
 * windows per segment). Prints every layer's row count and a few rows.
 */
final class MedallionDemo {
  static final String TOPIC = "demo-orders";

  /**
   * The dimension: one customer of the demo ({@code heidi}) is missing, to show the left join's
   * nulls.
   */
  static final List<Object[]> CUSTOMERS =
      List.of(
          new Object[] {"alice", "retail", "north"},
          new Object[] {"bob", "retail", "south"},
          new Object[] {"carol", "business", "north"},
          new Object[] {"dave", "business", "east"},
          new Object[] {"erin", "retail", "west"},
          new Object[] {"frank", "enterprise", "south"},
          new Object[] {"grace", "enterprise", "east"});

  private static final String[] LAYERS = {"bronze", "silver", "gold"};
  private final PrintStream out;

  MedallionDemo(PrintStream out) {
    this.out = out;
  }

  int run(int events, Path dir) throws Exception {
    DemoCommand.prepare(dir);
    out.println("Tributary medallion demo: output in " + dir);
    out.println("1. Starting an embedded Kafka broker (KRaft)...");
    try (EmbeddedBroker broker = EmbeddedBroker.start(3, TOPIC)) {
      SampleEvents.Batch sample =
          SampleEvents.generate(events, Instant.parse("2026-11-01T08:00:00Z"), 7);
      DemoCommand.produce(broker.bootstrapServers(), TOPIC, sample);
      out.printf(
          "2. Produced %,d events to topic %s (3 partitions): %s%n",
          events, TOPIC, sample.describe());
      Map<String, String> env =
          Map.of(
              "KAFKA_BOOTSTRAP",
              broker.bootstrapServers(),
              "ORDERS_TOPIC",
              TOPIC,
              "TRIBUTARY_DATA",
              dir.toString());
      Path customers = dir.resolve("tables/customers");
      writeCustomers(customers);
      out.printf(
          "3. Wrote the dimension table %s: %d customers (heidi is missing: her orders keep null"
              + " segment and region)%n",
          customers, CUSTOMERS.size());
      int step = 4;
      for (String layer : LAYERS) {
        runLayer(step++, layer, env, dir);
      }
      out.println(
          "\nEach layer read the previous one's new commits exactly once; run the pipelines again and"
              + " they continue from their checkpoints.");
      return 0;
    }
  }

  /** Runs a demo pipeline available-now; returns the progress of its batches. */
  static List<BatchProgress> runAvailableNow(CompiledPipeline pipeline) throws Exception {
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run = PipelineRun.open(pipeline, new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress.last(1000);
  }

  /** "3 batches, 1,000 rows in, 990 rows out, 4 quarantined, 6 filtered out, 0 late". */
  static String describe(List<BatchProgress> batches) {
    return String.format(
        "%d batch%s, %,d rows in, %,d rows out, %,d quarantined, %,d filtered out, %,d late",
        batches.size(),
        batches.size() == 1 ? "" : "es",
        batches.stream().mapToLong(BatchProgress::inputRows).sum(),
        batches.stream().mapToLong(BatchProgress::outputRows).sum(),
        batches.stream().mapToLong(BatchProgress::quarantinedRows).sum(),
        batches.stream().mapToLong(BatchProgress::filteredRows).sum(),
        batches.stream().mapToLong(BatchProgress::lateRows).sum());
  }

  /** Writes the customers dimension with our own Delta writer, as any Delta writer could. */
  static void writeCustomers(Path path) throws IOException {
    StructType schema =
        StructType.of(
            StructField.nullable("customer_id", PrimitiveType.STRING),
            StructField.nullable("segment", PrimitiveType.STRING),
            StructField.nullable("region", PrimitiveType.STRING));
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(schema, List.of(), Map.of());
      try (AppendTransaction tx =
          table.newAppend(new TransactionId("tributary-demo-customers", 0))) {
        for (Object[] row : CUSTOMERS) {
          tx.write(row);
        }
        tx.commit(Map.of());
      }
    }
  }

  private void runLayer(int step, String layer, Map<String, String> env, Path dir)
      throws Exception {
    String yaml = DemoCommand.resource("demo/medallion/" + layer + ".yaml");
    Path file = dir.resolve(layer + ".yaml");
    Files.writeString(file, yaml);
    PipelineSpec spec = PipelineParser.parse(yaml, file.toString(), env);
    CompiledPipeline pipeline = PipelineFactory.compile(spec);
    out.printf("%n%d. %s: running pipeline %s (available-now):%n", step, layer, spec.id());
    out.println("   " + describe(runAvailableNow(pipeline)));
    try (ObjectStore store = ObjectStores.open(spec.sink().path(), null)) {
      Snapshot table = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      long rows = 0;
      for (DataFile f : table.files()) {
        rows += DataFiles.readAll(store, f, table.schema()).size();
      }
      out.printf(
          "   %s table %s: version %d, %d files, %,d rows%n",
          layer, spec.sink().path(), table.version(), table.fileCount(), rows);
      printSample(store, table, 5);
    }
  }

  private void printSample(ObjectStore store, Snapshot table, int n) throws IOException {
    out.println("     " + String.join(" | ", table.schema().fieldNames()));
    int shown = 0;
    for (DataFile f : table.files()) {
      for (Object[] row : DataFiles.readAll(store, f, table.schema())) {
        if (shown++ >= n) {
          return;
        }
        out.println("     " + String.join(" | ", Arrays.stream(row).map(String::valueOf).toList()));
      }
    }
  }
}
