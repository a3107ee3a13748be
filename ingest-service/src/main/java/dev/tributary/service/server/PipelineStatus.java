package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.RunActivity;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * One served pipeline as the REST API shows it. Carries no secret: the declaration is reduced to
 * its file, trigger, sink and schedules, and its texts pass {@link ManagedPipeline#mask}.
 *
 * @param id pipeline id (for a file that could not be parsed, the file name without extension)
 * @param file the declaration file
 * @param state current state
 * @param reason why it is FAILED or DEGRADED (null otherwise); a DEGRADED reason says what cannot
 *     be reached, for how long, and the last failure
 * @param since when it entered the current state
 * @param restarts restarts after transient failures since the service started
 * @param trigger the trigger of the current (or next) run: {@code processing-time 10s}, {@code
 *     available-now}, {@code once}
 * @param sink the sink table location (null if the file could not be parsed)
 * @param schedules declared schedules by operation ({@code compaction}, {@code vacuum}, {@code
 *     backfill})
 * @param lastBatch the last batch's progress record (null before the first batch)
 * @param lag total offsets behind the latest offsets after the last batch (null before the first
 *     batch)
 * @param watermark the last batch's watermark (null without a watermark)
 * @param lastBatchAt when the last batch completed (null before the first batch since the service
 *     started)
 * @param lastBatchAgeSeconds seconds since then (null before the first batch): grows during an
 *     outage, and also while no new data arrives
 * @param activity what the run is doing now (null without an active run)
 * @param freshnessSeconds now minus the newest Kafka record timestamp committed since the service
 *     started (null before one): keeps rising while nothing commits, even when {@code lag} is low
 * @param commitLag records read by the batch in flight and not committed yet (0 between batches)
 */
public record PipelineStatus(
    String id,
    String file,
    PipelineState state,
    String reason,
    Instant since,
    int restarts,
    String trigger,
    String sink,
    Map<String, String> schedules,
    BatchProgress lastBatch,
    Long lag,
    Instant watermark,
    Instant lastBatchAt,
    Long lastBatchAgeSeconds,
    Activity activity,
    Double freshnessSeconds,
    long commitLag) {

  /**
   * What the run is doing now (see {@link RunActivity.Phase}).
   *
   * @param phase OPENING, PLANNING, READING, COMMITTING or WAITING
   * @param since when the run entered it
   */
  public record Activity(RunActivity.Phase phase, Instant since) {}

  /**
   * What {@link #freshnessSeconds} and {@link #commitLag} are computed from.
   *
   * @param newestCommitted the newest Kafka record timestamp committed (null before one)
   * @param commitLag records read and not committed yet
   */
  record Freshness(Instant newestCommitted, long commitLag) {}

  /** Copies the schedules. */
  public PipelineStatus {
    schedules = Map.copyOf(schedules);
  }

  static PipelineStatus of(
      ManagedPipeline p,
      PipelineLifecycle.Snapshot life,
      TriggerSpec trigger,
      BatchProgress last,
      RunActivity.Snapshot activity,
      Freshness freshness,
      Instant now) {
    return of(p.id(), p.file(), p.spec(), p::mask, life, trigger, last, activity, freshness, now);
  }

  /** The status of a pipeline that is not served (the one of {@code run --ui-port}). */
  static PipelineStatus of(
      String id,
      Path file,
      Optional<PipelineSpec> spec,
      UnaryOperator<String> mask,
      PipelineLifecycle.Snapshot life,
      TriggerSpec trigger,
      BatchProgress last,
      RunActivity.Snapshot activity,
      Freshness freshness,
      Instant now) {
    Instant lastBatchAt = activity.lastBatch().orElse(null);
    return new PipelineStatus(
        id,
        file.toString(),
        life.state(),
        life.reason(),
        life.since(),
        life.restarts(),
        trigger == null ? null : ServerMessages.trigger(trigger),
        spec.map(s -> mask.apply(String.join(", ", s.sinkLocations()))).orElse(null),
        spec.map(PipelineStatus::schedules).orElse(Map.of()),
        last,
        last == null ? null : last.lag(),
        last == null ? null : last.watermark(),
        lastBatchAt,
        lastBatchAt == null ? null : Duration.between(lastBatchAt, now).toSeconds(),
        life.state().active() ? new Activity(activity.phase(), activity.since()) : null,
        freshness.newestCommitted() == null
            ? null
            : Duration.between(freshness.newestCommitted(), now).toMillis() / 1000.0,
        freshness.commitLag());
  }

  static Map<String, String> schedules(PipelineSpec spec) {
    Map<String, String> out = new TreeMap<>();
    spec.maintenance().compaction().ifPresent(c -> out.put("compaction", c.schedule()));
    spec.maintenance().vacuum().ifPresent(v -> out.put("vacuum", v.schedule()));
    spec.backfill().ifPresent(b -> out.put("backfill", b.schedule()));
    return out;
  }
}
