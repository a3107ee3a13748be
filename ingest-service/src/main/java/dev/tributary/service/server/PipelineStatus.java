package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * One served pipeline as the REST API shows it. Carries no secret: the declaration is reduced to
 * its file, trigger, sink and schedules, and its texts pass {@link ManagedPipeline#mask}.
 *
 * @param id pipeline id (for a file that could not be parsed, the file name without extension)
 * @param file the declaration file
 * @param state current state
 * @param reason why it FAILED or is RETRYING (null otherwise)
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
    Instant watermark) {

  /** Copies the schedules. */
  public PipelineStatus {
    schedules = Map.copyOf(schedules);
  }

  static PipelineStatus of(
      ManagedPipeline p,
      PipelineState state,
      String reason,
      Instant since,
      int restarts,
      TriggerSpec trigger,
      BatchProgress last) {
    return new PipelineStatus(
        p.id(),
        p.file().toString(),
        state,
        reason,
        since,
        restarts,
        trigger == null ? null : ServerMessages.trigger(trigger),
        p.spec().map(s -> p.mask(s.sink().path())).orElse(null),
        p.spec().map(PipelineStatus::schedules).orElse(Map.of()),
        last,
        last == null ? null : last.lag(),
        last == null ? null : last.watermark());
  }

  static Map<String, String> schedules(PipelineSpec spec) {
    Map<String, String> out = new TreeMap<>();
    spec.maintenance().compaction().ifPresent(c -> out.put("compaction", c.schedule()));
    spec.maintenance().vacuum().ifPresent(v -> out.put("vacuum", v.schedule()));
    spec.backfill().ifPresent(b -> out.put("backfill", b.schedule()));
    return out;
  }
}
