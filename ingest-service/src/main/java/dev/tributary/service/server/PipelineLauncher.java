package dev.tributary.service.server;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineRun;
import java.util.List;

/**
 * Opens one run of a pipeline. The seam between the supervisor ({@link ManagedPipeline}) and the
 * engine: production opens a {@link PipelineRun}; supervisor tests use scripted runs.
 */
interface PipelineLauncher {

  /**
   * Opens a run with {@code trigger} that reports batches to {@code progress}.
   *
   * @throws Exception what prevented the run from opening (classified by {@link Failures})
   */
  ActiveRun open(TriggerSpec trigger, ProgressLog progress) throws Exception;

  /** A run that is open: {@link #run()} blocks, {@link #stop()} may be called from any thread. */
  interface ActiveRun extends AutoCloseable {
    /**
     * Runs batches until the trigger ends the run or {@link #stop()} is called; throws what failed.
     */
    void run() throws Exception;

    /** Lets the batch in progress finish, then ends {@link #run()}. */
    void stop();

    /**
     * This run's memberships of consumer groups (group assignment; empty otherwise). Any thread.
     */
    default List<GroupMember> groups() {
      return List.of();
    }

    /** Releases the run's resources; never throws. */
    @Override
    void close();
  }

  /** Launches real runs of a compiled pipeline. */
  static PipelineLauncher of(CompiledPipeline pipeline) {
    return (trigger, progress) -> {
      PipelineRun run = PipelineRun.open(pipeline, trigger, progress);
      return new ActiveRun() {
        @Override
        public void run() throws Exception {
          run.run();
        }

        @Override
        public void stop() {
          run.stop();
        }

        @Override
        public List<GroupMember> groups() {
          return run.groups();
        }

        @Override
        public void close() {
          run.close();
        }
      };
    };
  }
}
