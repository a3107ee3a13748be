package dev.tributary.service.server;

import dev.tributary.config.Location;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.StorageSpec;
import dev.tributary.service.backfill.BackfillPlan;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;

/**
 * The range backfill jobs of serve mode, kept in memory: per pipeline the newest {@link #KEPT}
 * jobs, at most one of them running. Nothing here needs to survive a restart: a backfill's progress
 * is in its own checkpoint and its table's txns, so posting the same range and table again after a
 * restart (or a stop, or a failure) continues it where it was (docs/DESIGN.md, "Backfills from the
 * API").
 *
 * <p>Before a job starts, its locations (table, quarantine, checkpoint) are checked against every
 * served pipeline's and every running backfill's, the folder rule of serve mode: a backfill table
 * inside another pipeline's table would lose its files to that table's vacuum, and two backfills
 * into one table would interleave their commits.
 */
final class BackfillJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackfillJobs.class);

  /** Jobs kept per pipeline (the oldest ended ones are forgotten first). */
  static final int KEPT = 20;

  private final Clock clock;
  private final Duration shutdownTimeout;
  // Guarded by this: per pipeline, newest first.
  private final Map<String, Deque<BackfillJob>> jobs = new HashMap<>();

  BackfillJobs(Clock clock, Duration shutdownTimeout) {
    this.clock = clock;
    this.shutdownTimeout = shutdownTimeout;
  }

  /**
   * Starts {@code planned} as a job of {@code pipeline} unless one of its backfills runs.
   *
   * @param served the declarations of every served pipeline (their locations are checked)
   * @throws ApiException 409 naming the running job; 400 if the backfill's locations overlap a
   *     served pipeline's or a running backfill's
   */
  synchronized BackfillJob start(
      String pipeline,
      BackfillRequest request,
      BackfillJob.Planned planned,
      Secrets secrets,
      Collection<PipelineSpec> served) {
    Optional<BackfillJob> running = running(pipeline);
    if (running.isPresent()) {
      throw new ApiException(
          HttpStatus.CONFLICT,
          ServerMessages.backfillRunning(pipeline, running.get().id(), running.get().describe()));
    }
    List<PipelineSpec> owners = new ArrayList<>(served);
    jobs.values().stream()
        .flatMap(Deque::stream)
        .filter(j -> !j.state().ended())
        .forEach(j -> owners.add(j.spec()));
    overlap(planned.plan(), owners)
        .ifPresent(
            conflict -> {
              throw new ApiException(
                  HttpStatus.BAD_REQUEST,
                  secrets.mask(
                      ServerMessages.backfillSharesStorage(
                          pipeline, planned.plan().target(), conflict)));
            });
    BackfillJob job = BackfillJob.start(newId(), pipeline, request, planned, secrets, clock);
    Deque<BackfillJob> list = jobs.computeIfAbsent(pipeline, p -> new ArrayDeque<>());
    list.addFirst(job);
    while (list.size() > KEPT) {
      list.removeLast(); // the newest is the only one that may run: the oldest have ended
    }
    return job;
  }

  /** The pipeline's jobs, newest first. */
  synchronized List<BackfillJob> of(String pipeline) {
    return List.copyOf(jobs.getOrDefault(pipeline, new ArrayDeque<>()));
  }

  /** One job of the pipeline. */
  synchronized Optional<BackfillJob> find(String pipeline, String job) {
    return jobs.getOrDefault(pipeline, new ArrayDeque<>()).stream()
        .filter(j -> j.id().equals(job))
        .findFirst();
  }

  private Optional<BackfillJob> running(String pipeline) {
    return jobs.getOrDefault(pipeline, new ArrayDeque<>()).stream()
        .filter(j -> !j.state().ended())
        .findFirst();
  }

  /**
   * A short id, unique among this run's jobs; random so that an id of an earlier run is not reused.
   */
  private String newId() {
    while (true) {
      String id = UUID.randomUUID().toString().substring(0, 8);
      if (jobs.values().stream().flatMap(Deque::stream).noneMatch(j -> j.id().equals(id))) {
        return id;
      }
    }
  }

  /**
   * The first location of {@code backfill} that is, contains or lies inside a location another
   * declaration owns, described; S3 locations of different endpoints never overlap.
   */
  static Optional<String> overlap(BackfillPlan plan, Collection<PipelineSpec> owners) {
    PipelineSpec backfill = plan.spec();
    Map<String, String> mine = owned(backfill);
    for (PipelineSpec owner : owners) {
      if (!endpoint(owner).equals(endpoint(backfill))) {
        continue;
      }
      for (Map.Entry<String, String> theirs : owned(owner).entrySet()) {
        for (Map.Entry<String, String> ours : mine.entrySet()) {
          if (stagedInTheLiveTable(plan, owner, theirs.getKey(), ours.getValue())) {
            continue; // --replace's staging folder: the live table's by design (its vacuum knows)
          }
          if (location(ours.getValue()).overlaps(location(theirs.getValue()))) {
            return Optional.of(
                "Its "
                    + ours.getKey()
                    + " '"
                    + ours.getValue()
                    + "' overlaps the "
                    + theirs.getKey()
                    + " '"
                    + theirs.getValue()
                    + "' of "
                    + owner.id()
                    + ".");
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Whether {@code path} of a replace's backfill lies in the staging folder of the table it
   * replaces the range of, which {@code owner} (the live pipeline) owns as its {@code what}.
   */
  private static boolean stagedInTheLiveTable(
      BackfillPlan plan, PipelineSpec owner, String what, String path) {
    return plan.stagesInLiveTable()
        && owner.id().equals(plan.live().id())
        && what.equals("table")
        && path.startsWith(plan.target());
  }

  /** The places a declaration writes, by what they are. */
  private static Map<String, String> owned(PipelineSpec spec) {
    Map<String, String> out = new LinkedHashMap<>();
    spec.deltaSink().ifPresent(d -> out.put("table", d.tablesFolder()));
    out.put("quarantine table", spec.quarantine().path());
    spec.lateEvents().ifPresent(l -> out.put("late-events table", l.path()));
    out.put("checkpoint", spec.checkpoint());
    return out;
  }

  private static Location location(String text) {
    try {
      return Location.parse(text, Path.of(""));
    } catch (IllegalArgumentException e) {
      throw new ApiException(HttpStatus.BAD_REQUEST, e.getMessage());
    }
  }

  private static String endpoint(PipelineSpec spec) {
    return spec.storage().flatMap(StorageSpec::endpoint).orElse("");
  }

  /**
   * Stops every running job after its batch in progress and waits for them, bounded by the
   * service's shutdown timeout; a job that has not ended by then continues from its checkpoint when
   * posted again.
   */
  @Override
  public void close() {
    List<BackfillJob> all;
    synchronized (this) {
      all = jobs.values().stream().flatMap(Deque::stream).toList();
    }
    all.forEach(BackfillJob::stop);
    long deadline = System.nanoTime() + shutdownTimeout.toNanos();
    for (BackfillJob job : all) {
      try {
        if (!job.awaitEnd(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
          LOG.warn(
              "Backfill job {} did not finish its batch within {}; posting it again continues it",
              job.id(),
              shutdownTimeout);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
