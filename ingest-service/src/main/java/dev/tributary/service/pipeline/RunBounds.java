package dev.tributary.service.pipeline;

import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.WatermarkPolicy;

/**
 * How a run that is not the pipeline's own live run (a backfill, docs/DESIGN.md "Backfills") bends
 * the run {@link PipelineRun#open} builds: where its source stops, which rows its sink keeps, and
 * which watermark its batches apply. {@link #NONE} changes nothing. Only exclusive-assignment,
 * write-ahead-log runs take bounds.
 */
public interface RunBounds {

  /** The live run: nothing changed. */
  RunBounds NONE = new RunBounds() {};

  /** Called once with the source, before the run starts (such as to set where it ends). */
  default void bound(Source source) {}

  /** The sink the engine writes to, in place of {@code sink}. */
  default TableSink sink(TableSink sink) {
    return sink;
  }

  /** The watermark policy of the run's batches, given its (bound) source. */
  default WatermarkPolicy watermarks(Source source) {
    return WatermarkPolicy.OWN;
  }
}
