package dev.tributary.service.backfill;

import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.WatermarkPolicy;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.pipeline.RunBounds;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs a planned backfill ({@link BackfillPlan}) into its new table: the pipeline's engine with the
 * backfill's declaration, bounded by {@link RunBounds} — the source ends at the offsets of {@code
 * to} plus the delay (fixed at start), the sink takes only the range's rows, and a stateful query's
 * last batch applies the range's end as watermark ({@link WatermarkPolicy.Closing}).
 *
 * <p>Idempotent: every batch is committed with the backfill's own txn (app id {@code
 * <pipeline>-backfill-<hash>@<checkpoint id>}), so after a crash the same command replays the
 * interrupted batch against its own checkpoint and the table keeps each row once. A table that
 * exists with data and holds no txn of this backfill is refused.
 */
public final class Backfill {
  private Backfill() {}

  /**
   * Runs {@code plan} to its end (or until {@code started}'s run is stopped).
   *
   * @param started receives the run once opened, so that a signal can stop it
   * @throws BackfillRefusal if the target holds another table, or the source lost the range
   */
  public static BackfillSummary into(
      BackfillPlan plan, ProgressLog progress, Consumer<PipelineRun> started) throws Exception {
    boolean resumed = checkTarget(plan);
    CompiledPipeline compiled = PipelineFactory.compile(plan.spec());
    RowSelector selector = plan.selector(outputSchema(compiled));
    boolean stateful = compiled.stateful().isPresent();
    Bounds bounds = new Bounds(plan, selector, stateful, resumed);
    AtomicInteger batches = new AtomicInteger();
    progress.addListener(p -> batches.incrementAndGet());
    try (PipelineRun run =
        PipelineRun.open(compiled, new TriggerSpec.AvailableNow(), progress, bounds)) {
      started.accept(run);
      run.run();
    }
    Snapshot after = snapshot(plan).orElseThrow();
    return new BackfillSummary(
        plan.id(),
        plan.target(),
        selector.describe(),
        batches.get(),
        bounds.sink.written(),
        bounds.sink.outside(),
        after.fileCount(),
        after.version(),
        resumed,
        plan.spec().checkpoint(),
        plan.spec().deltaSource().isPresent()
            ? "the source table " + plan.spec().deltaSource().get().path() + " as of the start"
            : "Kafka timestamps ["
                + plan.range().readFrom(plan.delay())
                + ", "
                + plan.range().readUntil(plan.delay())
                + ")",
        plan.edges());
  }

  /**
   * The output columns; for a Delta source, once the query is compiled against the source table's
   * schema (as the run does when it opens).
   */
  private static StructType outputSchema(CompiledPipeline compiled) throws IOException {
    if (!compiled.awaitsSourceSchema()) {
      return compiled.outputSchema();
    }
    PipelineSpec spec = compiled.spec();
    DeltaSourceSpec delta = spec.deltaSource().orElseThrow();
    try (ObjectStore store =
            ObjectStores.open(
                delta.path(), PipelineFactory.s3Settings(delta.storage().or(spec::storage)));
        DeltaTableSource table = PipelineFactory.deltaSource(spec, store, false)) {
      return PipelineFactory.bindSource(compiled, delta.path(), table.schema()).outputSchema();
    }
  }

  /**
   * Refuses a target that holds a table this backfill did not write.
   *
   * @return whether the target holds this backfill's earlier (interrupted or finished) run
   */
  private static boolean checkTarget(BackfillPlan plan) throws IOException {
    var snapshot = snapshot(plan);
    if (snapshot.isEmpty()) {
      return false;
    }
    String ownPrefix = plan.id() + "@";
    boolean own =
        snapshot.get().state().transactions().keySet().stream()
            .anyMatch(appId -> appId.startsWith(ownPrefix));
    if (own) {
      return true;
    }
    if (snapshot.get().fileCount() == 0) {
      return false; // an empty table (created, never written): nothing to lose
    }
    throw new BackfillRefusal(
        BackfillErrors.targetNotEmpty(plan.live().id(), plan.target(), snapshot.get().version()));
  }

  private static Optional<Snapshot> snapshot(BackfillPlan plan) throws IOException {
    try (ObjectStore store = PipelineFactory.store(plan.spec(), plan.target())) {
      DeltaTable table = DeltaTable.open(store, PipelineFactory.tableOptions(plan.spec()));
      return table.exists() ? Optional.of(table.snapshot()) : Optional.empty();
    }
  }

  /** The backfill's bounds on the pipeline's run. */
  private static final class Bounds implements RunBounds {
    private final BackfillPlan plan;
    private final RowSelector selector;
    private final boolean stateful;
    private final boolean resumed;
    private RangeFilteredSink sink;

    Bounds(BackfillPlan plan, RowSelector selector, boolean stateful, boolean resumed) {
      this.plan = plan;
      this.selector = selector;
      this.stateful = stateful;
      this.resumed = resumed;
    }

    @Override
    public void bound(Source source) {
      if (!(source instanceof KafkaSource kafka)) {
        return; // a Delta source table: available-now bounds it at the version it opened
      }
      if (!resumed) {
        // Only before the first batch: a resumed run's earlier batches may have read what
        // retention has deleted since.
        Map<TopicPartition, Long> gaps = kafka.retentionGaps(plan.range().readFrom(plan.delay()));
        if (!gaps.isEmpty()) {
          throw new BackfillRefusal(
              BackfillErrors.retentionGaps(
                  plan.live().id(), plan.range().readFrom(plan.delay()), gaps),
              1);
        }
      }
      kafka.endAt(plan.range().readUntil(plan.delay()));
    }

    @Override
    public TableSink sink(TableSink table) {
      sink = new RangeFilteredSink(table, selector);
      return sink;
    }

    @Override
    public WatermarkPolicy watermarks(Source source) {
      if (!stateful) {
        return WatermarkPolicy.OWN;
      }
      BooleanSupplier drained =
          source instanceof KafkaSource kafka
              ? kafka::drained
              : ((DeltaTableSource) source)::drained;
      return new WatermarkPolicy.Closing(drained, BackfillRange.micros(plan.range().to()));
    }
  }
}
