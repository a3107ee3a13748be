package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.Secrets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Progress records are kept and handed on with the pipeline's secrets masked. */
class ProgressLogTest {

  private static BatchProgress record(String topic) {
    return new BatchProgress(
        "orders",
        7,
        false,
        Instant.parse("2026-12-01T10:00:00Z"),
        10,
        9,
        1,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        List.of(new BatchProgress.PartitionProgress(topic, 0, 0, 10, 12)),
        3,
        null,
        List.of(topic + "-0: offsets 0 to 4 were deleted by retention"),
        Map.of(),
        0,
        0);
  }

  @Test
  void masksTopicNamesAndDataGapsThatHoldASecret() {
    ProgressLog log = new ProgressLog(10, Secrets.of(List.of("tenant-secret-42")));
    List<BatchProgress> heard = new ArrayList<>();
    log.addListener(heard::add);

    log.add(record("events-tenant-secret-42"));

    BatchProgress kept = log.last(1).get(0);
    assertThat(kept.partitions().get(0).topic()).isEqualTo("events-******");
    assertThat(kept.dataGaps())
        .containsExactly("events-******-0: offsets 0 to 4 were deleted by retention");
    assertThat(ProgressLog.toJson(kept)).doesNotContain("tenant-secret-42");
    assertThat(heard).containsExactly(kept);
    assertThat(kept.lag()).isEqualTo(2);
    assertThat(kept.outputRows()).isEqualTo(9);
  }

  @Test
  void keepsRecordsAsTheyAreWithoutSecrets() {
    ProgressLog log = new ProgressLog(10);
    BatchProgress record = record("events");
    log.add(record);
    assertThat(log.last(1)).containsExactly(record);
  }
}
