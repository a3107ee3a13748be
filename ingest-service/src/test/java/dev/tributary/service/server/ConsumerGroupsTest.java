package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The REST API's {@code groups}: absent in exclusive assignment; in group assignment, a broker that
 * does not answer never fails the endpoint or holds it up past the timeout, shows as the group's
 * {@code error}, and is asked again only once the cached outcome is old.
 */
class ConsumerGroupsTest {
  private final AtomicLong now = new AtomicLong();
  private final ConsumerGroups groups =
      new ConsumerGroups(
          Duration.ofMillis(500), Duration.ofSeconds(5), now::get, Clock.systemUTC());

  @AfterEach
  void close() {
    groups.close();
  }

  @Test
  void anExclusivePipelineHasNoGroups() {
    assertThat(groups.of(pipeline("solo", "exclusive", 1))).isNull();
    assertThat(groups.requests()).isZero();
  }

  // No wall-clock bound on the first call (it also creates the admin client, seconds on a loaded
  // machine); the timeout only guards against a call that never returns.
  @Test
  @Timeout(60)
  void aBrokerThatDoesNotAnswerIsAnErrorInTheGroupBoundedAndCached() {
    // a loopback port nobody listens on: every connection is refused
    ManagedPipeline p = pipeline("shared", "group", ChildJvm.freePort());
    List<GroupStatus> first = groups.of(p);
    assertThat(first)
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.groupId()).isEqualTo("tributary-shared");
              assertThat(g.memberId()).as("no active run").isNull();
              assertThat(g.assigned()).isEmpty();
              assertThat(g.members()).isEmpty();
              assertThat(g.state()).isNull();
              assertThat(g.error()).contains("tributary-shared").contains("Check");
            });

    // once the failed request has completed, its outcome is reused for the cache period
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              groups.of(p);
              return groups.requests() == 1 && groups.of(p).get(0).error() != null;
            });
    for (int i = 0; i < 20; i++) {
      assertThat(groups.of(p).get(0).error()).isNotNull();
    }
    assertThat(groups.requests()).as("a polling dashboard does not hammer the broker").isEqualTo(1);
    now.addAndGet(Duration.ofSeconds(6).toNanos());
    groups.of(p);
    assertThat(groups.requests()).as("asked again once the outcome is old").isEqualTo(2);
  }

  private static ManagedPipeline pipeline(String id, String assignment, int port) {
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: %1$s
        source:
          kafka:
            bootstrap-servers: 127.0.0.1:%3$d
            topics: [t]
            assignment: %2$s
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: /tmp/none/%1$s
        checkpoint: /tmp/none/%1$s-checkpoint
        """
                .formatted(id, assignment, port),
            id + ".yaml",
            Map.of());
    return ManagedPipeline.invalid(
        id,
        Path.of(id + ".yaml"),
        Optional.of(spec),
        "not started in this test",
        Clock.systemUTC());
  }
}
