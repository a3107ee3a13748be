package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.backfill.Backfill;
import dev.tributary.service.backfill.BackfillPlan;
import dev.tributary.service.backfill.BackfillRange;
import dev.tributary.service.backfill.BackfillRefusal;

/**
 * Turns a range backfill request of the REST API into a planned backfill, with the checks and the
 * messages of {@code tributary backfill}: the range ({@link BackfillRange#parse}), then the
 * declaration ({@link BackfillPlan}). Nothing is read or written here.
 */
final class BackfillRequests {
  private BackfillRequests() {}

  /**
   * Plans {@code request} for the live pipeline {@code live}.
   *
   * @throws BackfillRefusal with the message the command prints (the range's own messages name the
   *     options {@code --from} and {@code --to}, the request's {@code from} and {@code to})
   */
  static BackfillJob.Planned plan(PipelineSpec live, BackfillRequest request) {
    String id = live.id();
    if (request.from() == null || request.to() == null) {
      throw new BackfillRefusal(
          ServerMessages.backfillRequestIncomplete(id, "the request needs \"from\" and \"to\""));
    }
    if (request.replacing() && request.into() != null) {
      throw new BackfillRefusal(
          ServerMessages.backfillRequestIncomplete(
              id, "\"into\" and \"replace\" exclude each other"));
    }
    if (!request.replacing() && (request.into() == null || request.into().isBlank())) {
      throw new BackfillRefusal(
          ServerMessages.backfillRequestIncomplete(
              id, "the request needs \"into\" (a new table) or \"replace\": true"));
    }
    BackfillRange range = BackfillRange.parse(request.from(), request.to());
    return request.replacing() ? replace(live, range) : into(live, range, request.into().strip());
  }

  /** {@code into}: the range recomputed into a new table. */
  private static BackfillJob.Planned into(PipelineSpec live, BackfillRange range, String target) {
    BackfillPlan plan = BackfillPlan.into(live, range, target);
    return new BackfillJob.Planned(
        plan,
        (progress, stoppable) ->
            BackfillJob.Done.into(
                Backfill.into(plan, progress, run -> stoppable.accept(run::stop))));
  }

  /**
   * {@code replace: true}: the range recomputed into a staging table and swapped into the live
   * table in one commit ({@link Backfill#replace}).
   */
  private static BackfillJob.Planned replace(PipelineSpec live, BackfillRange range) {
    BackfillPlan plan = BackfillPlan.replace(live, range);
    return new BackfillJob.Planned(
        plan,
        (progress, stoppable) ->
            BackfillJob.Done.replaced(
                Backfill.replace(plan, progress, run -> stoppable.accept(run::stop))));
  }
}
