package dev.tributary.service.replay;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Opens what a replay of a pipeline's quarantine needs, as the live pipeline opens it (the compiled
 * declaration with its joins, the sink with its row rules or evolving columns, the processor for
 * that sink), and runs {@link QuarantineReplay} once.
 */
public final class Replays {
  private Replays() {}

  /**
   * Replays the quarantine of {@code spec}'s pipeline.
   *
   * @param where a SQL predicate over the quarantine table's columns, or empty for all its rows
   * @return what the replay did; empty when the pipeline has no quarantine table yet
   * @throws PipelineDefinitionException if the pipeline cannot be replayed into ({@link
   *     ReplayScope}) or {@code where} does not compile; nothing was written
   */
  public static Optional<ReplayReport> run(PipelineSpec spec, Optional<String> where)
      throws Exception {
    CompiledPipeline compiled = PipelineFactory.compile(spec);
    List<String> refusals = ReplayScope.refusals(compiled);
    if (!refusals.isEmpty()) {
      throw new PipelineDefinitionException(
          spec.id(), refusals.stream().map(r -> "replay-quarantine: " + r).toList());
    }
    try (ObjectStore quarantineStore = PipelineFactory.store(spec, spec.quarantine().path());
        ObjectStore sinkStore = PipelineFactory.store(spec, spec.sink().path())) {
      DeltaTable quarantine = DeltaTable.open(quarantineStore, PipelineFactory.tableOptions(spec));
      if (!quarantine.exists()) {
        return Optional.empty();
      }
      CompiledPipeline pipeline = PipelineFactory.bindJoins(compiled);
      // the processor closes the joins
      try (RecordProcessor joinsOwner = pipeline.processor()) {
        DeltaTableSink sink = PipelineFactory.sink(pipeline, sinkStore);
        RecordProcessor processor = PipelineFactory.processor(pipeline, null, null, sink);
        DeltaTable sinkTable = DeltaTable.open(sinkStore, PipelineFactory.tableOptions(spec));
        return Optional.of(
            new QuarantineReplay(
                    spec.id(), sink, sinkTable, quarantine, processor, Clock.systemUTC())
                .replay(where));
      }
    }
  }
}
