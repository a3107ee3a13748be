package dev.tributary.service.cli;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.TableRowRules;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.SinkTables;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableException;
import dev.tributary.table.TableRules;
import dev.tributary.table.log.ProtocolSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What {@code validate} can tell of a Delta sink table that exists already
 * (docs/PROTOCOL_SUPPORT.md): whether this pipeline can append to it — its writer features, and the
 * row rules (CHECK constraints, invariants, generated and identity columns) the pipeline must
 * honour — so that a table another engine made is refused by name before the pipeline starts, with
 * the same check and message as at start. Only an appending pipeline's one table is checked
 * (upsert, routed and fan-out sinks check theirs at start). The table is read once, within a time
 * bound; a store that does not answer (no credentials here, an endpoint not reachable from this
 * machine) is reported as not checked, never as invalid.
 */
final class SinkTableCheck {
  /** How long the check may wait for the store. */
  static final Duration BOUND = Duration.ofSeconds(5);

  /**
   * The outcome.
   *
   * @param refused whether the table refuses this pipeline's appends (validate fails)
   * @param line what the plan prints about the table
   */
  record Result(boolean refused, String line) {}

  private SinkTableCheck() {}

  /** Checks the pipeline's sink table, if it has one to check. */
  static Optional<Result> check(CompiledPipeline pipeline) {
    PipelineSpec spec = pipeline.spec();
    if (spec.deltaSink().isEmpty()
        || spec.sinks().size() != 1
        || spec.sink().route().isPresent()
        || spec.sink().upsert().isPresent()) {
      return Optional.empty();
    }
    CompletableFuture<Result> result = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                result.complete(read(pipeline));
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            },
            "validate-sink-table");
    reader.setDaemon(true); // a store that hangs must not keep the command from exiting
    reader.start();
    try {
      return Optional.of(result.get(BOUND.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return Optional.of(notChecked("no answer within " + BOUND.toSeconds() + " s"));
    } catch (ExecutionException e) {
      return Optional.of(notChecked(String.valueOf(e.getCause().getMessage())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of(notChecked("interrupted"));
    }
  }

  private static Result read(CompiledPipeline pipeline) throws Exception {
    PipelineSpec spec = pipeline.spec();
    try (ObjectStore store = SinkTables.openStore(spec)) {
      DeltaTable table = DeltaTable.open(store, PipelineFactory.tableOptions(spec));
      if (!table.exists()) {
        return new Result(false, "none yet: the first batch creates it");
      }
      Snapshot snapshot = table.snapshot();
      try {
        Optional<TableRowRules> rules = PipelineFactory.rowRules(pipeline, table);
        table.checkAppendable(rules.isPresent() ? ProtocolSupport.ROW_RULE_FEATURES : Set.of());
        return new Result(
            false,
            "version "
                + snapshot.version()
                + ", appendable"
                + rules.map(r -> "; every row checked against " + describe(r.rules())).orElse(""));
      } catch (TableException | IllegalStateException e) {
        return new Result(true, e.getMessage());
      }
    }
  }

  private static String describe(TableRules rules) {
    List<String> parts = new ArrayList<>();
    rules.checks().forEach(c -> parts.add(c.describe()));
    rules.generated().forEach(g -> parts.add("generated " + g.column() + " = " + g.expression()));
    rules.identities().forEach(i -> parts.add("identity " + i.column()));
    return String.join(", ", parts);
  }

  private static Result notChecked(String why) {
    return new Result(false, "not checked (" + why + "); the pipeline checks it at start");
  }
}
