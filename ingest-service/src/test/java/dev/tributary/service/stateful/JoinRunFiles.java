package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.cli.Main;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What the kill -9 tests of joined pipelines ({@link StreamJoinCrashIT}, {@link
 * StreamJoinWindowCrashIT}) read and run around a pipeline file: each pipeline lives in its own
 * folder, {@code <folder>/pipeline.yaml}, its tables in {@code <folder>/tables/<name>} and its
 * checkpoint in {@code <folder>/checkpoint}. Runs are the command line's ({@code run --pipeline
 * <file> --available-now}) in a child JVM, or the same run in process for the uncrashed reference.
 */
final class JoinRunFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JoinRunFiles() {}

  /** Something read from a pipeline's checkpoint. */
  @FunctionalInterface
  interface CheckpointRead<T> {
    T from(Checkpoint checkpoint) throws Exception;
  }

  /**
   * Starts {@code run --pipeline <file> --available-now} in a child JVM, its output in {@code log}.
   */
  static Process start(List<String> jvm, Path pipeline, Path log, Path workDir) throws Exception {
    return ChildJvm.start(
        jvm,
        Main.class.getName(),
        List.of("run", "--pipeline", pipeline.toString(), "--available-now"),
        log,
        workDir);
  }

  /** Runs the pipeline available-now in this JVM; its progress records, oldest first. */
  static List<BatchProgress> runInProcess(Path pipeline) throws Exception {
    PipelineSpec spec = PipelineParser.parse(pipeline, Map.of());
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress.last(1000);
  }

  static ObjectStore table(Path pipeline, String table) throws Exception {
    return ObjectStores.open(pipeline.resolveSibling("tables").resolve(table).toString(), null);
  }

  /**
   * A table's rows, each as text: every column (the Kafka provenance, the late watermark, the
   * quarantine's error and batch id…) but the quarantine's pipeline name and time of quarantining,
   * which differ between two pipelines by nature.
   */
  static List<String> rows(Path pipeline, String table) throws Exception {
    try (ObjectStore store = table(pipeline, table)) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int at = schema.indexOf("quarantined_at");
      int name = schema.indexOf("pipeline");
      List<String> out = new ArrayList<>();
      for (Object[] row : TableContents.rows(store)) {
        for (int c : new int[] {at, name}) {
          if (c >= 0) {
            row[c] = null;
          }
        }
        out.add(Arrays.deepToString(row));
      }
      return out;
    }
  }

  static <T> T read(Path pipeline, CheckpointRead<T> read) throws Exception {
    PipelineSpec spec = PipelineParser.parse(pipeline, Map.of());
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      return read.from(Checkpoint.open(store, spec.id(), spec.checkpointIdentity()));
    }
  }

  /** Every offsets entry, from batch 0 on; checked to be whole (none purged). */
  static List<OffsetsEntry> offsets(Checkpoint checkpoint) throws Exception {
    List<OffsetsEntry> entries = new ArrayList<>();
    for (long b = 0; checkpoint.offsets(b).isPresent(); b++) {
      entries.add(checkpoint.offsets(b).get());
    }
    assertThat(entries.size() - 1L)
        .as("no entry purged: the cut is whole")
        .isEqualTo(checkpoint.latestOffsets().orElseThrow().batchId());
    return entries;
  }

  /** Per batch: its ranges, its two watermarks and the per-input watermarks it committed. */
  static List<String> cut(Path pipeline) throws Exception {
    return read(
        pipeline,
        checkpoint -> {
          List<String> out = new ArrayList<>();
          for (OffsetsEntry e : offsets(checkpoint)) {
            out.add(e.ranges() + " " + e.watermarkMicros() + " " + e.lateWatermarkMicros());
            out.add(
                String.valueOf(
                    checkpoint
                        .commit(e.batchId())
                        .map(c -> c.extras().get(StreamJoinProcessor.WATERMARK_INPUTS))));
          }
          return out;
        });
  }

  /** The last progress line a child run printed. */
  static JsonNode lastProgress(Path log) throws Exception {
    JsonNode last = null;
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("{") && line.contains("\"batchId\"")) {
        last = JSON.readTree(line);
      }
    }
    assertThat(last).as("a progress line in %s", log).isNotNull();
    return last;
  }
}
