package dev.tributary.service.engine;

import dev.tributary.config.TriggerSpec;

/**
 * Runs a pipeline's batches until the trigger ends the run or it is stopped. The one implementation
 * is {@link TriggerLoop}; the interface is what a pipeline run holds.
 */
public interface BatchLoop {
  /**
   * Runs batches until the trigger says the run is over (available-now, once) or {@link #stop} is
   * called. Returns normally after a clean stop; throws what made a batch fail.
   */
  void run(TriggerSpec trigger) throws Exception;

  /** Asks the loop to stop after the batch in progress; returns at once; thread-safe. */
  void stop();
}
