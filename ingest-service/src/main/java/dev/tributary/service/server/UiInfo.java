package dev.tributary.service.server;

import java.util.List;

/**
 * What the status page may offer ({@code GET /api/ui}): {@code serve} has every action; {@code run
 * --ui-port} only stops its one run.
 *
 * @param mode {@code serve} or {@code run}
 * @param actions the POST actions of {@code /api/pipelines/{id}/...} this process answers
 */
public record UiInfo(String mode, List<String> actions) {
  /** Serve mode: every action of {@link PipelinesController}. */
  static final UiInfo SERVE =
      new UiInfo("serve", List.of("start", "stop", "backfill", "compact", "vacuum"));

  /** {@code run --ui-port}: stopping the run (as Ctrl-C does) is all there is. */
  static final UiInfo RUN = new UiInfo("run", List.of("stop"));

  /** Copies the actions. */
  public UiInfo {
    actions = List.copyOf(actions);
  }
}
