package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.CommitEntry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The agreed watermark: the minimum over every partition's latest commits entry, none until each
 * has one.
 */
class AgreedWatermarkTest {
  private static Optional<CommitEntry> commit(OptionalLong next) {
    return Optional.of(new CommitEntry(3, next, Instant.EPOCH, Map.of()));
  }

  @Test
  void theMinimumOfEveryPartitionNotTheMaximum() {
    assertThat(
            AgreedWatermark.minimum(
                List.of(
                    commit(OptionalLong.of(50)),
                    commit(OptionalLong.of(20)),
                    commit(OptionalLong.of(90)))))
        .hasValue(20);
  }

  @Test
  void noneWhileAPartitionHasNoCommitOrNoWatermark() {
    assertThat(AgreedWatermark.minimum(List.of(commit(OptionalLong.of(50)), Optional.empty())))
        .isEmpty();
    assertThat(
            AgreedWatermark.minimum(
                List.of(commit(OptionalLong.of(50)), commit(OptionalLong.empty()))))
        .isEmpty();
    assertThat(AgreedWatermark.minimum(List.of())).isEmpty();
  }
}
