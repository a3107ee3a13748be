package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Every vacuum takes its retention here; one under the floor (check turned off) warns each time.
 */
class VacuumRetentionTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger(VacuumRetention.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void capture() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
  }

  private static PipelineSpec spec(String maintenance) {
    return PipelineParser.parse(
        """
        pipeline: orders
        source:
          kafka:
            bootstrap-servers: localhost:9092
            topics: [orders]
        format:
          json:
            schema:
              id: long
        sink:
          delta: { path: /t/orders }
        checkpoint: /c/orders
        %s"""
            .formatted(maintenance),
        "orders.yaml",
        Map.of());
  }

  @Test
  void defaultsToSevenDaysWithoutAWarning() {
    assertThat(VacuumRetention.of(spec(""))).isEqualTo(Duration.ofDays(7));
    assertThat(
            VacuumRetention.of(
                spec("maintenance: { vacuum: { schedule: \"0 0 3 * * *\", retention: 30 days } }")))
        .isEqualTo(Duration.ofDays(30));
    assertThat(logged.list).isEmpty();
  }

  @Test
  void warnsAtEveryVacuumUnderTheFloor() {
    PipelineSpec spec =
        spec(
            "maintenance: { vacuum: { schedule: \"0 0 3 * * *\", retention: 1 hour, retention-check: false } }");

    assertThat(VacuumRetention.of(spec)).isEqualTo(Duration.ofHours(1));
    assertThat(VacuumRetention.of(spec)).isEqualTo(Duration.ofHours(1));

    assertThat(logged.list)
        .hasSize(2)
        .allSatisfy(
            event -> {
              assertThat(event.getLevel()).isEqualTo(Level.WARN);
              assertThat(event.getFormattedMessage())
                  .isEqualTo(
                      "Vacuum of pipeline orders (table /t/orders) uses a"
                          + " retention of 1 hour, under the minimum of 7 days, because maintenance.vacuum.retention-check is"
                          + " false: a file a batch in progress has written but not committed, or one an older snapshot being"
                          + " read uses, is deleted once it is older than that.");
            });
  }
}
