package dev.tributary.service.server;

import dev.tributary.config.Assignment;
import dev.tributary.config.PipelineFolder;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The pipelines of the served folder. Loading never fails as a whole: a file that does not parse or
 * compile, or whose loading throws anything at all (an {@link Error} included), becomes a FAILED
 * pipeline with the reason, the others run. As a Spring lifecycle bean it starts every runnable
 * pipeline (with its declared trigger) and the schedules once the context is up, and on shutdown
 * (SIGTERM) stops the schedules, asks every run to stop after its batch in progress and waits for
 * them, bounded by {@link ServeSettings#shutdownTimeout()}.
 */
final class ServedPipelines implements SmartLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(ServedPipelines.class);

  private final ServeSettings settings;
  private final Map<String, ManagedPipeline> pipelines = new LinkedHashMap<>();
  private final Map<String, PipelineMetrics> metrics = new LinkedHashMap<>();
  private final Schedules schedules;
  private volatile boolean running;

  ServedPipelines(
      ServeSettings settings, MeterRegistry registry, Maintenance maintenance, Clock clock) {
    this(settings, registry, maintenance, clock, Loader.REAL);
  }

  /**
   * Turns one file into a runnable pipeline; the seam that lets tests make a stage throw what no
   * small real input makes it throw (an {@link Error}).
   */
  interface Loader {
    /** Parses and validates the file. */
    PipelineSpec parse(Path file);

    /** Compiles the declaration into what opens its runs. */
    PipelineLauncher compile(PipelineSpec spec);

    /** The parser and the compiler of the service. */
    Loader REAL =
        new Loader() {
          @Override
          public PipelineSpec parse(Path file) {
            return PipelineParser.parse(file);
          }

          @Override
          public PipelineLauncher compile(PipelineSpec spec) {
            CompiledPipeline compiled = PipelineFactory.compile(spec);
            return PipelineLauncher.of(compiled);
          }
        };
  }

  ServedPipelines(
      ServeSettings settings,
      MeterRegistry registry,
      Maintenance maintenance,
      Clock clock,
      Loader loader) {
    this.settings = settings;
    Path dir = settings.pipelinesDir();
    if (!Files.isDirectory(dir)) {
      throw new IllegalStateException(ServerMessages.noPipelinesDir(dir));
    }
    Map<String, Path> files = new LinkedHashMap<>();
    for (Path file : pipelineFiles(dir)) {
      ManagedPipeline p = load(loader, file, settings.supervisor(), clock);
      if (files.containsKey(p.id())) {
        p =
            ManagedPipeline.invalid(
                p.id() + "@" + file.getFileName(),
                file,
                p.spec(),
                ServerMessages.duplicateId(p.id(), file, files.get(p.id())),
                clock);
      }
      files.put(p.id(), file);
      pipelines.put(p.id(), p);
    }
    refuseSharedLocations(clock);
    for (ManagedPipeline p : pipelines.values()) {
      if (p.spec().isPresent()) {
        // The table tag is the sink location, which may hold a secret reference's value.
        PipelineMetrics m =
            new PipelineMetrics(
                registry,
                p.id(),
                p.mask(String.join(", ", p.spec().get().sinkLocations())),
                p::state,
                clock);
        if (p.spec()
            .get()
            .kafkaSource()
            .map(k -> k.assignment() == Assignment.GROUP)
            .orElse(false)) {
          m.groupAssignment();
        }
        p.attach(m);
        metrics.put(p.id(), m);
      }
    }
    this.schedules = new Schedules(pipelines.values(), this::metrics, maintenance);
    LOG.info("Serving {} pipeline(s) from {}: {}", pipelines.size(), dir, pipelines.keySet());
  }

  /**
   * Fails every pipeline whose tables or checkpoint overlap another pipeline's (see {@link
   * PipelineFolder}); the others are served as usual. Only runnable pipelines take part: one that
   * already failed (a duplicate id, a query that does not compile) writes nothing, and a copied
   * file must not take the original down with it; once fixed, it is checked at the next start.
   */
  private void refuseSharedLocations(Clock clock) {
    Map<Path, PipelineSpec> declared = new LinkedHashMap<>();
    for (ManagedPipeline p : pipelines.values()) {
      if (p.runnable()) {
        declared.put(p.file(), p.spec().orElseThrow());
      }
    }
    Map<Path, String> conflicts = PipelineFolder.conflicts(declared);
    for (Map.Entry<String, ManagedPipeline> entry : pipelines.entrySet()) {
      ManagedPipeline p = entry.getValue();
      String reason = conflicts.get(p.file());
      if (reason != null) {
        LOG.error("Pipeline {} ({}) will not run: {}", p.id(), p.file(), reason);
        entry.setValue(ManagedPipeline.invalid(p.id(), p.file(), p.spec(), reason, clock));
      }
    }
  }

  private static List<Path> pipelineFiles(Path dir) {
    try (Stream<Path> list = Files.list(dir)) {
      return list.filter(
              f ->
                  Files.isRegularFile(f)
                      && (f.getFileName().toString().endsWith(".yaml")
                          || f.getFileName().toString().endsWith(".yml")))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot list pipelines directory " + dir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Loads one file. Any {@link Throwable} of a stage (an exception, a {@link StackOverflowError} of
   * a pathological file, an {@link OutOfMemoryError} of a huge one) fails this pipeline only: one
   * file must never keep the others from being served. The JVM that survived the error goes on; a
   * real lack of memory shows again in the pipelines that run, and ExitOnOutOfMemoryError (the
   * container default) still ends the process there.
   */
  private static ManagedPipeline load(
      Loader loader, Path file, SupervisorSettings supervisor, Clock clock) {
    String fallbackId = file.getFileName().toString().replaceFirst("\\.ya?ml$", "");
    PipelineSpec spec;
    try {
      spec = loader.parse(file);
    } catch (Throwable e) {
      String reason = ServerMessages.loadFailed(e, Failures.describe(e, Secrets.NONE));
      LOG.error("Pipeline file {} is invalid; it will not run: {}", file, reason);
      return ManagedPipeline.invalid(fallbackId, file, Optional.empty(), reason, clock);
    }
    try {
      return ManagedPipeline.runnable(spec, file, loader.compile(spec), supervisor, clock);
    } catch (Throwable e) {
      String reason = ServerMessages.loadFailed(e, Failures.describe(e, spec.secrets()));
      LOG.error("Pipeline {} ({}) cannot be built; it will not run: {}", spec.id(), file, reason);
      return ManagedPipeline.invalid(spec.id(), file, Optional.of(spec), reason, clock);
    }
  }

  /** Every pipeline of the folder, in file order. */
  Collection<ManagedPipeline> all() {
    return pipelines.values();
  }

  Optional<ManagedPipeline> find(String id) {
    return Optional.ofNullable(pipelines.get(id));
  }

  /** The meters of a runnable pipeline. */
  PipelineMetrics metrics(ManagedPipeline p) {
    return metrics.get(p.id());
  }

  @Override
  public void start() {
    for (ManagedPipeline p : pipelines.values()) {
      p.spec().ifPresent(spec -> p.start(spec.trigger()));
    }
    schedules.start();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    schedules.stop();
    pipelines.values().forEach(ManagedPipeline::stop);
    long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
    for (ManagedPipeline p : pipelines.values()) {
      try {
        if (!p.awaitInactive(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
          LOG.warn(
              "Pipeline {} did not finish its batch within {}; the next start replays it",
              p.id(),
              settings.shutdownTimeout());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    LOG.info("All pipelines stopped");
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
