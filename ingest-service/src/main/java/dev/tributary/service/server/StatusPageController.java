package dev.tributary.service.server;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the status page ({@code static/index.html}, served at {@code /}) asks of serve mode besides
 * the pipelines API: which actions to offer. The page itself is a static resource; its data comes
 * from {@code /api/**}, so the token rule of {@link ApiAccessFilter} applies to everything it
 * shows.
 */
@ConditionalOnProperty("tributary.pipelines-dir")
@RestController
class StatusPageController {
  /** The actions the page offers in serve mode. */
  @GetMapping(path = "/api/ui", produces = "application/json")
  UiInfo ui() {
    return UiInfo.SERVE;
  }
}
