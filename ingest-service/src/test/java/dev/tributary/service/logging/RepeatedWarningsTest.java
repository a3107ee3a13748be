package dev.tributary.service.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka's warnings during a broker outage, through the filter in a logback context of its own (time
 * is a fake clock): the first of a kind, then one per interval with the count left out.
 */
class RepeatedWarningsTest {
  private static final String UNREACHABLE =
      "[Consumer clientId=tributary-orders-1, groupId=null] Connection to node -1"
          + " (localhost/127.0.0.1:9092) could not be established. Node may not be available.";

  private final AtomicLong nanos = new AtomicLong();
  private final LoggerContext context = new LoggerContext();
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private Logger network;

  @BeforeEach
  void setUp() {
    RepeatedWarnings filter = new RepeatedWarnings(nanos::get);
    filter.setContext(context);
    filter.setInterval("1 minute");
    filter.start();
    context.addTurboFilter(filter);
    logged.setContext(context);
    logged.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(logged);
    network = context.getLogger("org.apache.kafka.clients.NetworkClient");
  }

  private void seconds(long s) {
    nanos.addAndGet(Duration.ofSeconds(s).toNanos());
  }

  private List<String> messages() {
    return logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void theFirstWarningThenOneAMinuteWithTheCountLeftOut() {
    for (int i = 0; i < 60; i++) { // one a second for a minute, as the client does
      network.warn(UNREACHABLE);
      seconds(1);
    }
    assertThat(messages()).containsExactly(UNREACHABLE);

    network.warn(UNREACHABLE);
    assertThat(messages())
        .containsExactly(
            UNREACHABLE, UNREACHABLE + " [repeated 59 more times in the last 60 s, not logged]");
    assertThat(logged.list.get(1).getLevel()).isEqualTo(Level.WARN);
    assertThat(logged.list.get(1).getLoggerName())
        .isEqualTo("org.apache.kafka.clients.NetworkClient");

    seconds(61);
    network.warn(UNREACHABLE);
    assertThat(messages())
        .as("alone in its minute: nothing left out")
        .hasSize(3)
        .last()
        .isEqualTo(UNREACHABLE);
  }

  @Test
  void warningsThatDifferOnlyInNumbersAreOneKindOthersAreTheirOwn() {
    network.warn("Connection to node -1 (localhost/127.0.0.1:9092) could not be established.");
    network.warn("Connection to node 1 (localhost/127.0.0.1:9093) could not be established.");
    network.warn("Bootstrap broker localhost:9092 (id: -1 rack: null) disconnected");
    network.warn("Connection to node -1 ({}) could not be established.", "other-host:9092");
    context
        .getLogger("org.apache.kafka.clients.consumer.internals.ConsumerCoordinator")
        .warn("Connection to node -1 (localhost/127.0.0.1:9092) could not be established.");
    assertThat(messages())
        .containsExactly(
            "Connection to node -1 (localhost/127.0.0.1:9092) could not be established.",
            "Bootstrap broker localhost:9092 (id: -1 rack: null) disconnected",
            "Connection to node -1 (other-host:9092) could not be established.",
            "Connection to node -1 (localhost/127.0.0.1:9092) could not be established.");
  }

  @Test
  void othersLoggersAndLowerLevelsAreLeftAlone() {
    Logger ours = context.getLogger("dev.tributary.service.server.PipelineSupervisor");
    for (int i = 0; i < 3; i++) {
      ours.warn("Pipeline orders failed (attempt 1)");
      network.info("Node -1 disconnected.");
    }
    assertThat(messages()).hasSize(6);
  }

  @Test
  void aWarningBelowTheLoggersLevelIsNotCounted() {
    context.getLogger("org.apache.kafka").setLevel(Level.ERROR);
    network.warn(UNREACHABLE);
    context.getLogger("org.apache.kafka").setLevel(Level.WARN);
    network.warn(UNREACHABLE);
    assertThat(messages()).as("the first one shown is not a repeat").containsExactly(UNREACHABLE);
  }

  @Test
  void theIntervalMustBeAPositiveDuration() {
    RepeatedWarnings filter = new RepeatedWarnings();
    assertThatThrownBy(() -> filter.setInterval("0s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the interval of RepeatedWarnings must be positive, was '0s'");
    assertThatThrownBy(() -> filter.setInterval("often"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot parse 'often' as a duration");
  }

  @Test
  void digitsAreWhatMakesWarningsAlike() {
    assertThat(RepeatedWarnings.shape("node -12 (host/10.0.0.1:9092)"))
        .isEqualTo("node # (host/#.#.#.#:#)");
  }
}
