package dev.tributary.service.backfill;

import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
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
import dev.tributary.table.CommitConflictException;
import dev.tributary.table.CommitResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.ReplaceRangeTransaction;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableException;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
 *
 * <p>{@link #replace} runs the same into a staging table, then swaps the range in the live table in
 * one commit with a txn of its own (docs/DESIGN.md, "Backfills").
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

  /** Swap plans made before a range that keeps conflicting is refused. */
  static final int SWAP_ATTEMPTS = 4;

  /**
   * Runs {@code plan} ({@link BackfillPlan#replace}) into its staging table, then swaps the range
   * in the live table in one commit ({@link ReplaceRangeTransaction}): the live files inside the
   * range removed, the straddling ones rewritten without the range's rows, the staging table's
   * files added by path, with the txn {@code <backfill id>/replace}. A rerun after the swap finds
   * the txn and does nothing; a rerun after a crash before it continues the staging run's
   * checkpoint and plans the swap again. A concurrent commit that may add rows of the range (or
   * removes a file the swap removes, or changes the table's metadata) makes the swap re-plan: the
   * staging run is continued (the Kafka end offsets computed again) and the swap planned on a fresh
   * snapshot, at most {@value #SWAP_ATTEMPTS} times.
   *
   * @param started receives the staging run once opened, so that a signal can stop it (a stopped
   *     run swaps nothing)
   * @throws BackfillRefusal if the live table is missing or refuses the swap, the source lost the
   *     range, the run was stopped, or the range kept conflicting
   */
  public static ReplaceSummary replace(
      BackfillPlan plan, ProgressLog progress, Consumer<PipelineRun> started) throws Exception {
    String pipeline = plan.live().id();
    TransactionId txn = new TransactionId(plan.id() + "/replace", 1);
    TableOptions options = PipelineFactory.tableOptions(plan.live());
    try (ObjectStore liveStore = PipelineFactory.store(plan.live(), plan.liveTable())) {
      DeltaTable live = DeltaTable.open(liveStore, options);
      Snapshot current =
          live.snapshotIfExists()
              .orElseThrow(
                  () ->
                      new BackfillRefusal(
                          BackfillErrors.liveTableMissing(pipeline, plan.liveTable())));
      if (ProtocolSupport.appendOnly(current.state().metadata())) {
        throw new BackfillRefusal(BackfillErrors.appendOnly(pipeline, plan.liveTable()));
      }
      String rule = plan.selector(current.schema()).describe();
      if (current.latestTransactionVersion(txn.appId()).isPresent()) {
        return swapped(plan, rule, current.version(), Optional.empty(), 0, Optional.empty());
      }
      createStaging(plan, current);
      CommitConflictException last = null;
      for (int attempt = 1; attempt <= SWAP_ATTEMPTS; attempt++) {
        AtomicReference<PipelineRun> run = new AtomicReference<>();
        BackfillSummary staged =
            into(
                plan,
                progress,
                r -> {
                  run.set(r);
                  started.accept(r);
                });
        if (run.get() != null && run.get().stopRequested()) {
          throw new BackfillRefusal(BackfillErrors.stoppedBeforeSwap(pipeline), 1);
        }
        CrashPoints.reached(CrashPoints.BACKFILL_STAGED);
        try {
          Optional<ReplaceRangeTransaction.Metrics> swap = swap(plan, live, txn);
          CrashPoints.reached(CrashPoints.BACKFILL_SWAPPED);
          // a swap found already committed (by a concurrent run of the same command) did nothing
          Optional<BackfillSummary> staging =
              swap.isPresent() ? Optional.of(staged) : Optional.empty();
          return swapped(plan, rule, live.snapshot().version(), staging, attempt, swap);
        } catch (CommitConflictException e) {
          last = e; // the range changed under the plan: stage what is new, plan again
        }
      }
      throw new BackfillRefusal(
          BackfillErrors.keptConflicting(pipeline, SWAP_ATTEMPTS, last.getMessage()), 1);
    }
  }

  /**
   * Plans and commits the swap on the live table's latest snapshot.
   *
   * @return what the commit did; empty if the table already held the swap
   * @throws CommitConflictException if a concurrent commit conflicts (nothing committed)
   */
  private static Optional<ReplaceRangeTransaction.Metrics> swap(
      BackfillPlan plan, DeltaTable live, TransactionId txn) throws IOException {
    Snapshot staged;
    try (ObjectStore stagingStore = PipelineFactory.store(plan.spec(), plan.target())) {
      staged = DeltaTable.open(stagingStore, PipelineFactory.tableOptions(plan.spec())).snapshot();
    }
    try (ReplaceRangeTransaction tx =
        live.newReplaceRange(txn, RangeFiles.of(plan, live.snapshot()))) {
      if (tx.alreadyCommitted()) {
        return Optional.empty();
      }
      try {
        tx.addTableFiles(staged, plan.stagingFolder());
      } catch (IllegalArgumentException e) {
        throw new BackfillRefusal(
            BackfillErrors.stagingLayout(plan.live().id(), plan.target(), e.getMessage()));
      }
      tx.prepare();
      CrashPoints.reached(CrashPoints.BACKFILL_REWRITTEN);
      CommitResult result =
          tx.commit(Map.of("backfill", plan.id(), "replaceRange", plan.range().toString()));
      return result.committed() ? Optional.of(tx.metrics()) : Optional.empty();
    } catch (TableException e) {
      if (e instanceof CommitConflictException conflict) {
        throw conflict;
      }
      throw new BackfillRefusal(BackfillErrors.swapRefused(plan.live().id(), e.getMessage()));
    }
  }

  /**
   * Creates the staging table with the live table's metadata (schema with its field metadata, so
   * the same physical column names under column mapping; partition columns; properties), so that
   * its data files are valid files of the live table. A staging table that exists is kept.
   */
  private static void createStaging(BackfillPlan plan, Snapshot live) throws IOException {
    try (ObjectStore store = PipelineFactory.store(plan.spec(), plan.target())) {
      DeltaTable staging = DeltaTable.open(store, PipelineFactory.tableOptions(plan.spec()));
      if (!staging.exists()) {
        staging.create(live.schema(), live.partitionColumns(), live.properties());
      }
    }
  }

  private static ReplaceSummary swapped(
      BackfillPlan plan,
      String rule,
      long version,
      Optional<BackfillSummary> staging,
      int attempts,
      Optional<ReplaceRangeTransaction.Metrics> swap) {
    return new ReplaceSummary(
        plan.id(),
        plan.liveTable(),
        rule,
        version,
        plan.target(),
        staging,
        swap,
        attempts,
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
