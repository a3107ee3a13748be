package dev.tributary.service.engine;

import dev.tributary.config.TriggerSpec;

/**
 * Runs a pipeline's batches: {@link MicroBatchEngine} for a pipeline that reads all of its input
 * (the checkpoint's offsets log is its progress), {@link GroupBatchEngine} for one instance of a
 * pipeline that shares its partitions with others (the sink table's positions are its progress).
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
