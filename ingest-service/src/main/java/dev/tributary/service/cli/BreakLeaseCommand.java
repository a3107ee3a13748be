package dev.tributary.service.cli;

import dev.tributary.checkpoint.CheckpointLease;
import dev.tributary.checkpoint.Lease;
import dev.tributary.config.Assignment;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.CheckpointLeases;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code tributary break-lease --pipeline FILE}: frees a pipeline's checkpoint whose owner cannot
 * release it (its machine is down) without waiting for the lease to expire. The next start takes
 * the checkpoint over at once; the old owner, should it still run, fails at its next checkpoint
 * write without writing. Exit 0 also when there was nothing to break.
 */
final class BreakLeaseCommand {
  private BreakLeaseCommand() {}

  static int run(CliArguments args, PrintStream out) {
    Path file =
        Path.of(
            args.option("pipeline")
                .orElseThrow(
                    () -> new CliArguments.UsageException("break-lease needs --pipeline FILE")));
    if (!Files.isRegularFile(file)) {
      throw new CliArguments.UsageException("no such pipeline file: " + file);
    }
    PipelineSpec spec = PipelineParser.parse(file);
    return MaskedFailure.masking(
        spec.secrets(), () -> run(spec, line -> out.println(spec.secrets().mask(line))));
  }

  private interface Lines {
    void println(String line);
  }

  private static int run(PipelineSpec spec, Lines out) throws Exception {
    if (spec.kafkaSource().map(k -> k.assignment() == Assignment.GROUP).orElse(false)) {
      out.println(
          "Pipeline "
              + spec.id()
              + " uses source.kafka.assignment: group: its instances share the checkpoint "
              + spec.checkpoint()
              + " and hold no lease, so there is nothing to break.");
      return 0;
    }
    try (ObjectStore store = PipelineFactory.store(spec, spec.checkpoint())) {
      Optional<Lease> broken =
          CheckpointLease.breakLease(store, spec.id(), CheckpointLeases.settings());
      if (broken.isEmpty()) {
        out.println(
            "The checkpoint "
                + spec.checkpoint()
                + " of pipeline "
                + spec.id()
                + " has no lease in force (none taken, or released): a start takes it over at"
                + " once.");
        return 0;
      }
      Lease lease = broken.get();
      out.println(
          "Broke the lease of checkpoint "
              + spec.checkpoint()
              + " held by "
              + lease.owner().describe()
              + " since "
              + lease.acquiredAt()
              + " (epoch "
              + lease.epoch()
              + "). The next start of pipeline "
              + spec.id()
              + " takes the checkpoint over at once; if that process still runs, it stops at its"
              + " next checkpoint write without writing.");
      return 0;
    }
  }
}
