package dev.tributary.service.cli;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.pipeline.RecordDecoders;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code tributary class-sharing-training PIPELINE.yaml}, not for users: the workload the launcher
 * records its class-data-sharing archive from (docs/DESIGN.md, "Start-up"), so that the classes a
 * {@code run} loads are mapped from the archive instead of loaded and verified. Without a broker:
 * {@code validate} of the given file; a Kafka source created and closed (the consumer's classes, no
 * connection); JSON records decoded by a bronze pipeline's decoder; and a real run in this process
 * of a pipeline from a small Delta table into another (checkpoint lease, write-ahead log, Parquet
 * read and write, Delta commits, the commits log), all in a temporary folder deleted after.
 */
final class ClassSharingTraining {
  private ClassSharingTraining() {}

  static int run(CliArguments args) throws Exception {
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    int validated =
        ValidateCommand.run(
            CliArguments.parse(
                new String[] {"validate", args.positional().get(0)}, Set.of(), Set.of()),
            quiet,
            quiet);
    Path dir = Files.createTempDirectory("tributary-class-sharing-training");
    try {
      kafkaAndJson(dir);
      deltaToDelta(dir);
    } finally {
      deleteRecursively(dir);
    }
    return validated;
  }

  private static final String BRONZE =
      """
      pipeline: class-sharing-training
      source:
        kafka:
          bootstrap-servers: 127.0.0.1:9
          topics: [events]
      format:
        json:
          schema: { id: string, ts: timestamp, amount: long, price: double, ok: boolean }
      sink:
        delta: { path: "%s/bronze" }
      checkpoint: "%s/bronze-checkpoint"
      """;

  /** A Kafka source created and closed (never connects), and JSON decoded as a bronze run does. */
  private static void kafkaAndJson(Path dir) {
    PipelineSpec spec =
        PipelineParser.parse(BRONZE.formatted(dir, dir), "class-sharing-training.yaml", Map.of());
    PipelineFactory.compile(spec);
    new KafkaSource(PipelineFactory.sourceSettings(spec, false)).close();
    RecordDecoder decoder =
        RecordDecoders.forFormat(spec.id(), spec.format().orElseThrow(), spec.secrets());
    for (int i = 0; i < 1000; i++) {
      String json =
          "{\"id\":\"e-"
              + i
              + "\",\"ts\":\"2026-11-01T00:00:0"
              + (i % 10)
              + "Z\",\"amount\":"
              + i
              + ",\"price\":1.5,\"ok\":true}";
      decoder.decode("events", 0, i, null, json.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static final String DELTA_TO_DELTA =
      """
      pipeline: class-sharing-training-delta
      source:
        delta: { path: "%s/source" }
      transform:
        - filter: "amount >= 0"
      sink:
        delta: { path: "%s/sink" }
      checkpoint: "%s/checkpoint"
      """;

  /** A real run, Delta table to Delta table, available-now. */
  static void deltaToDelta(Path dir) throws Exception {
    StructType schema =
        StructType.of(
            StructField.nullable("id", PrimitiveType.STRING),
            StructField.nullable("ts", PrimitiveType.TIMESTAMP),
            StructField.nullable("amount", PrimitiveType.LONG),
            StructField.nullable("price", PrimitiveType.DOUBLE),
            StructField.nullable("ok", PrimitiveType.BOOLEAN));
    try (ObjectStore store = ObjectStores.open(dir.resolve("source").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(schema, List.of(), Map.of());
      try (AppendTransaction append =
          table.newAppend(new TransactionId("class-sharing-training", 0))) {
        for (int i = 0; i < 1000; i++) {
          append.write(new Object[] {"e-" + i, Instant.EPOCH.plusSeconds(i), (long) i, 1.5, true});
        }
        append.commit(Map.of());
      }
    }
    PipelineSpec spec =
        PipelineParser.parse(
            DELTA_TO_DELTA.formatted(dir, dir, dir), "class-sharing-training.yaml", Map.of());
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (Exception ignored) {
      // a temporary folder: left to the system
    }
  }
}
