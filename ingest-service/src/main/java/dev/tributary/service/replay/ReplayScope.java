package dev.tributary.service.replay;

import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.CompiledPipeline;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipelines {@code replay-quarantine} can replay into exactly once, and why the others are
 * refused (docs/DESIGN.md, "Replaying the quarantine").
 */
public final class ReplayScope {
  private ReplayScope() {}

  /** Why the pipeline's quarantine cannot be replayed, one reason a line; empty when it can. */
  public static List<String> refusals(CompiledPipeline pipeline) {
    PipelineSpec spec = pipeline.spec();
    List<String> out = new ArrayList<>();
    if (spec.deltaSource().isPresent()) {
      out.add(
          "source: delta: its quarantine holds typed table rows, not Kafka records to parse"
              + " again; replay-quarantine replays the quarantine of a Kafka source");
    }
    if (pipeline.stateful().isPresent()) {
      out.add(
          "watermark/deduplicate/aggregate: a stateful pipeline's replayed records would enter"
              + " windows and deduplication state the live pipeline has emitted or evicted, so"
              + " their results would be wrong or counted twice; recompute the affected range"
              + " with `tributary backfill` instead");
    }
    if (spec.sinks().size() != 1 || spec.deltaSink().isEmpty()) {
      out.add(
          "sinks "
              + spec.sinkLocations()
              + ": replay-quarantine writes to a pipeline's one Delta sink table");
    } else {
      DeltaSinkSpec delta = spec.sink();
      if (delta.route().isPresent()) {
        out.add(
            "sink.delta.route: replaying into routed tables is not supported yet (each table"
                + " would need its own replay commit)");
      }
      if (delta.upsert().isPresent()) {
        out.add(
            "sink.delta.write: upsert: a replayed record is older than the rows the table holds"
                + " for its key, and merging it now could overwrite a newer row; replay into an"
                + " appending sink");
      }
    }
    return out;
  }
}
