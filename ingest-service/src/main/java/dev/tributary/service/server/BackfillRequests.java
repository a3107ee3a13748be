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
        (progress, stoppable) -> Backfill.into(plan, progress, run -> stoppable.accept(run::stop)));
  }

  /**
   * {@code replace: true}: the range swapped in the live table in one commit. The one place that
   * decides it: today it refuses with the reason {@code tributary backfill --replace} gives. TODO
   * issue 28: once {@code Backfill.replace} exists, plan and run it here as {@link #into} does
   * ({@code BackfillPlan.replace(live, range)}, {@code Backfill.replace(plan, progress, ...)}); the
   * job, the API and the page need no other change.
   */
  private static BackfillJob.Planned replace(PipelineSpec live, BackfillRange range) {
    throw new BackfillRefusal(ServerMessages.replaceNotAvailable(live.id()));
  }
}
