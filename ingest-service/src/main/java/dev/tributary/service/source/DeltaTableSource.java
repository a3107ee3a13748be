package dev.tributary.service.source;

import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.SourceInput;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLag;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourcePosition;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A Delta table read as a stream ({@code source.delta}), behind the engine's {@link Source} SPI,
 * with {@link DeltaSourcePlanner} doing the Delta part (docs/DELTA_SOURCE.md). A batch range is
 * {@code [from, to)} of the table's history, recorded as the facts {@value #FROM} and {@value #TO}
 * (each a {@link SourcePosition#toJson()}); it has no offsets. The rows are delivered typed, in the
 * table's schema, file after file in commit order, which depends only on the range: a replay reads
 * the same rows in the same order whether or not the processor asked for a fixed order.
 *
 * <p>Not thread-safe: one source per pipeline run, used from the engine's thread.
 */
public final class DeltaTableSource implements Source {
  /** Range fact: the position the range starts at. */
  public static final String FROM = "delta.from";

  /** Range fact: the position after the range, where the next batch starts. */
  public static final String TO = "delta.to";

  private final String pipelineId;
  private final String location;
  private final DeltaSourcePlanner planner;
  private final StartingPoint startingPoint;
  private final SourceLimits limits;
  private long lastVersion = Long.MAX_VALUE;

  /** Whether the latest plan found nothing left up to {@link #lastVersion}. */
  private boolean drained;

  /** The range planned last, read without replanning when the batch reads it. */
  private SourceRange planned;

  /**
   * Opens the table's latest snapshot: its schema is the pipeline's input schema ({@link #schema}).
   *
   * @param startingPoint where a checkpoint without batches starts ({@code starting-version})
   * @param limits {@code max-files-per-trigger} / {@code max-bytes-per-trigger}
   * @param options {@code ignore-deletes} / {@code skip-change-commits}
   */
  public DeltaTableSource(
      String pipelineId,
      DeltaTable table,
      StartingPoint startingPoint,
      SourceLimits limits,
      ChangeOptions options)
      throws IOException {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.location = table.location();
    this.planner = DeltaSourcePlanner.open(table, options);
    this.startingPoint = Objects.requireNonNull(startingPoint, "startingPoint");
    this.limits = Objects.requireNonNull(limits, "limits");
  }

  /** The table's schema when opened: the schema of the rows this source delivers. */
  public StructType schema() {
    return planner.readSchema();
  }

  /** Available-now: no batch reads a version above the one current when the source was opened. */
  @Override
  public void boundToAvailableNow() {
    lastVersion = planner.openedVersion();
  }

  /**
   * Whether the run is bounded ({@link #boundToAvailableNow}) and the latest plan found nothing
   * left to read up to the bound: the bounded input has been read to its end.
   */
  public boolean drained() {
    return lastVersion != Long.MAX_VALUE && drained;
  }

  @Override
  public PlannedBatch plan(BatchRange previous, boolean firstBatch) throws IOException {
    SourcePosition from = end(previous).orElse(null);
    if (from == null) {
      if (!previous.offsets().isEmpty() || !firstBatch) {
        throw new IllegalStateException(
            SourceMessages.notADeltaCheckpoint(pipelineId, location, previous));
      }
      from = planner.start(startingPoint);
    }
    SourceRange range = planner.plan(from, limits, lastVersion);
    planned = range;
    drained = range.isEmpty();
    Map<String, String> facts = new LinkedHashMap<>();
    facts.put(FROM, range.from().toJson());
    facts.put(TO, range.to().toJson());
    return planned(new BatchRange(Map.of(), facts), range.from(), range.to(), !range.isEmpty());
  }

  /** A recorded range run again: its lag is the table's now, after the range's end. */
  @Override
  public PlannedBatch replayed(BatchRange range) throws IOException {
    return planned(range, position(range, FROM), position(range, TO), true);
  }

  private PlannedBatch planned(
      BatchRange range, SourcePosition from, SourcePosition to, boolean hasInput)
      throws IOException {
    SourceLag lag = planner.lag(to);
    BatchProgress.PartitionProgress progress =
        new BatchProgress.PartitionProgress(
            location, 0, from.version(), to.version(), lag.latestVersion());
    Map<String, Long> sourceLag =
        Map.of(
            "versionsBehind",
            lag.versionsBehind(),
            "filesBehind",
            lag.filesBehind(),
            "bytesBehind",
            lag.bytesBehind());
    return new PlannedBatch(range, hasInput, List.of(progress), sourceLag);
  }

  /** How far the table is ahead of {@code range}'s end: versions, files and bytes behind. */
  public SourceLag lag(BatchRange range) throws IOException {
    return planner.lag(position(range, TO));
  }

  @Override
  public List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input)
      throws Exception {
    SourcePosition from = position(range, FROM);
    SourcePosition to = position(range, TO);
    SourceRange files =
        planned != null && planned.from().equals(from) && planned.to().equals(to)
            ? planned
            : planner.replay(from, to);
    for (SourceFile file : files.files()) {
      try (CloseableIterator<SourceRow> rows = planner.read(file)) {
        while (rows.hasNext()) {
          input.row(rows.next());
        }
      }
    }
    return List.of();
  }

  @Override
  public Map<String, String> commitInfo(BatchRange range) {
    return Map.of("deltaSource", location + " " + interval(range));
  }

  @Override
  public String describe(BatchRange range) {
    return "table " + location + " " + interval(range);
  }

  private static String interval(BatchRange range) {
    return "[" + position(range, FROM) + ", " + position(range, TO) + ")";
  }

  @Override
  public void close() {}

  private static Optional<SourcePosition> end(BatchRange range) {
    String json = range.facts().get(TO);
    return json == null ? Optional.empty() : Optional.of(SourcePosition.fromJson(json));
  }

  private static SourcePosition position(BatchRange range, String key) {
    String json = range.facts().get(key);
    if (json == null) {
      throw new IllegalStateException(
          "The batch's offsets entry has no "
              + key
              + ": it was not planned by a Delta source (was source.kafka changed to source.delta?)");
    }
    return SourcePosition.fromJson(json);
  }
}
