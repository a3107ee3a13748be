package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.server.ApiAccessFilter.Decision;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The access rules of every endpoint, for a client on loopback and one elsewhere (addresses are
 * only compared, never contacted), with and without a configured token.
 */
class ApiAccessFilterTest {
  private static final InetAddress LOOPBACK = address("127.0.0.1");
  private static final InetAddress LOOPBACK_V6 = address("::1");
  private static final InetAddress REMOTE = address("192.0.2.10"); // TEST-NET-1, documentation only

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private final ApiAccessFilter withToken = new ApiAccessFilter(Optional.of("s3cret-token"));
  private final ApiAccessFilter withoutToken = new ApiAccessFilter(Optional.empty());

  @Test
  void probesAreOpenToEveryone() {
    for (ApiAccessFilter filter : new ApiAccessFilter[] {withToken, withoutToken}) {
      for (String probe :
          new String[] {"/actuator/health/liveness", "/actuator/health/readiness"}) {
        assertThat(filter.decide("GET", probe, REMOTE, null)).as(probe).isEqualTo(Decision.PASS);
      }
    }
  }

  @Test
  void withATokenThePipelinesApiNeedsItForReadsToo() {
    for (String method : new String[] {"GET", "POST", "HEAD"}) {
      for (InetAddress from : new InetAddress[] {LOOPBACK, REMOTE}) {
        assertThat(withToken.decide(method, "/api/pipelines", from, null))
            .isEqualTo(Decision.UNAUTHORIZED);
        assertThat(withToken.decide(method, "/api/pipelines/orders", from, "Bearer wrong"))
            .isEqualTo(Decision.UNAUTHORIZED);
        assertThat(withToken.decide(method, "/api/pipelines/orders", from, "Basic s3cret-token"))
            .isEqualTo(Decision.UNAUTHORIZED);
        assertThat(withToken.decide(method, "/api/pipelines/orders", from, "Bearer s3cret-token"))
            .isEqualTo(Decision.AUTHORIZED);
      }
    }
  }

  @Test
  void withATokenHealthShowsDetailsOnlyWithIt() {
    assertThat(withToken.decide("GET", "/actuator/health", REMOTE, null)).isEqualTo(Decision.PASS);
    assertThat(withToken.decide("GET", "/actuator/health", LOOPBACK, "Bearer wrong"))
        .isEqualTo(Decision.PASS);
    assertThat(withToken.decide("GET", "/actuator/health/kafka", REMOTE, null))
        .isEqualTo(Decision.PASS);
    assertThat(withToken.decide("GET", "/actuator/health", REMOTE, "bearer s3cret-token"))
        .isEqualTo(Decision.AUTHORIZED);
  }

  @Test
  void withoutATokenDetailsAnswerOnLoopbackOnlyAndMutationsAreDisabled() {
    assertThat(withoutToken.decide("GET", "/api/pipelines", LOOPBACK, null))
        .isEqualTo(Decision.AUTHORIZED);
    assertThat(withoutToken.decide("GET", "/api/pipelines/orders", LOOPBACK_V6, null))
        .isEqualTo(Decision.AUTHORIZED);
    assertThat(withoutToken.decide("GET", "/api/pipelines", REMOTE, null))
        .isEqualTo(Decision.LOOPBACK_ONLY);
    assertThat(withoutToken.decide("GET", "/api/pipelines", REMOTE, "Bearer anything"))
        .isEqualTo(Decision.LOOPBACK_ONLY);
    assertThat(withoutToken.decide("GET", "/actuator/health", LOOPBACK, null))
        .isEqualTo(Decision.AUTHORIZED);
    assertThat(withoutToken.decide("GET", "/actuator/health", REMOTE, null))
        .isEqualTo(Decision.PASS);
    for (InetAddress from : new InetAddress[] {LOOPBACK, REMOTE}) {
      assertThat(withoutToken.decide("POST", "/api/pipelines/orders/stop", from, "Bearer anything"))
          .isEqualTo(Decision.DISABLED);
    }
  }

  @Test
  void otherPathsAreNotGuarded() {
    assertThat(withToken.decide("GET", "/actuator/prometheus", REMOTE, null))
        .isEqualTo(Decision.PASS);
    assertThat(withoutToken.decide("GET", "/actuator/prometheus", REMOTE, null))
        .isEqualTo(Decision.PASS);
    assertThat(withToken.decide("GET", "/apiary", REMOTE, null)).isEqualTo(Decision.PASS);
  }
}
