package dev.tributary.service.engine;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.expr.Step;
import dev.tributary.service.expr.Transforms;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The silver pipeline of the Delta source tests, wired by hand (no YAML): bronze {@code (id, name)}
 * → silver {@code (id, name, id_times_two)}, two files per batch, available-now, for the engine
 * tests. DeltaSourceCrashIT runs the same pipeline from YAML through the command line.
 */
public final class DeltaSilverRun {
  /** Bronze's schema. */
  public static final StructType BRONZE =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("name", PrimitiveType.STRING));

  private DeltaSilverRun() {}

  /**
   * Runs silver once over {@code dir}/bronze into {@code dir}/silver, checkpoint {@code dir}/chk.
   *
   * @return the progress records of the run's batches, oldest first
   */
  public static List<BatchProgress> run(Path dir) throws Exception {
    ProgressLog progress = new ProgressLog(100);
    try (ObjectStore bronze = open(dir, "bronze");
        ObjectStore checkpointStore = open(dir, "chk");
        ObjectStore silverStore = open(dir, "silver");
        ObjectStore quarantineStore = open(dir, "quarantine")) {
      Checkpoint checkpoint = Checkpoint.open(checkpointStore, "silver", Map.of());
      LinkedHashMap<String, String> derived = new LinkedHashMap<>();
      derived.put("id_times_two", "id * 2");
      StatelessProcessor processor =
          StatelessProcessor.forRows(
              "silver",
              bronze.location(),
              BRONZE,
              Transforms.compile(BRONZE, List.of(new Step.Derive(derived))),
              List.of(),
              null);
      TableSink silver =
          new DeltaTableSink(
              "silver",
              silverStore,
              DeltaTable.open(silverStore, TableOptions.defaults()),
              processor.outputSchema(),
              List.of(),
              DataWriteOptions.defaults());
      TableSink quarantine =
          new DeltaTableSink(
              "silver",
              quarantineStore,
              DeltaTable.open(quarantineStore, TableOptions.defaults()),
              QuarantineRows.SOURCE_ROW_SCHEMA,
              List.of(),
              DataWriteOptions.defaults());
      try (DeltaTableSource source =
          new DeltaTableSource(
              "silver",
              DeltaTable.open(bronze, TableOptions.defaults()),
              new StartingPoint.Earliest(),
              SourceLimits.of(2L, null),
              ChangeOptions.strict())) {
        TriggerLoop.Batches.writeAheadLog(
                new BatchBody.Settings(
                    "silver", source, processor, progress, Clock.systemUTC(), Optional.empty()),
                checkpoint,
                new TableTxns("silver", checkpoint.metadata().checkpointId()),
                Map.of(),
                new WriteAheadLog.Tables(silver, quarantine, Optional.empty()),
                WatermarkPolicy.OWN)
            .run(new TriggerSpec.AvailableNow());
      }
      return progress.last(100);
    }
  }

  private static ObjectStore open(Path dir, String name) throws IOException {
    return ObjectStores.open(dir.resolve(name).toString(), null);
  }

  /** {@code DeltaSilverRun <dir>}: one available-now run; exit 0 when it ends normally. */
  public static void main(String[] args) throws Exception {
    run(Path.of(args[0]));
    System.out.println("silver run done");
  }
}
