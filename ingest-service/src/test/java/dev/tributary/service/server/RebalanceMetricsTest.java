package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.GroupMember;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A group member's rebalances are counted by kind, and its partitions-owned gauge follows its
 * assignment at once (not the last batch, which may have been planned before the change).
 */
class RebalanceMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PipelineMetrics metrics =
      new PipelineMetrics(
          registry, "orders", "/tmp/none/orders", () -> PipelineState.RUNNING, Clock.systemUTC());

  @Test
  void rebalancesAreCountedByKindWithThePipelineTagAndTheOwnedGaugeFollowsTheGroup() {
    metrics.groupAssignment();
    assertThat(count("lost")).as("created up front").isZero();

    metrics.rebalanced(
        new GroupMember.Rebalance(
            "tributary-orders",
            GroupMember.Kind.ASSIGNED,
            partitions(0, 1, 2, 3),
            partitions(0, 1, 2, 3)));
    assertThat(owned()).isEqualTo(4);
    metrics.rebalanced(
        new GroupMember.Rebalance(
            "tributary-orders", GroupMember.Kind.REVOKED, partitions(2, 3), partitions(0, 1)));
    // a batch planned over all four before the revocation completes after it
    metrics.batchDone(batchOver(4));
    assertThat(owned()).isEqualTo(2);
    metrics.rebalanced(
        new GroupMember.Rebalance(
            "tributary-orders", GroupMember.Kind.LOST, partitions(0, 1), List.of()));
    // another group of the pipeline (stateful mode's repartition group) is counted, not owned
    metrics.rebalanced(
        new GroupMember.Rebalance(
            "tributary-orders-repartition",
            GroupMember.Kind.ASSIGNED,
            partitions(5),
            partitions(5)));

    assertThat(count("assigned")).isEqualTo(2);
    assertThat(count("revoked")).isEqualTo(1);
    assertThat(count("lost")).isEqualTo(1);
    assertThat(owned()).isZero();
  }

  private double count(String kind) {
    return registry
        .get(MetricNames.REBALANCES)
        .tag(MetricNames.PIPELINE, "orders")
        .tag(MetricNames.KIND, kind)
        .counter()
        .count();
  }

  private double owned() {
    return registry
        .get(MetricNames.PARTITIONS_OWNED)
        .tag(MetricNames.PIPELINE, "orders")
        .gauge()
        .value();
  }

  private static List<SourcePartition> partitions(int... numbers) {
    return Arrays.stream(numbers).mapToObj(n -> new SourcePartition("orders", n)).toList();
  }

  private static BatchProgress batchOver(int partitions) {
    List<BatchProgress.PartitionProgress> planned =
        IntStream.range(0, partitions)
            .mapToObj(p -> new BatchProgress.PartitionProgress("orders", p, 0, 1, 1))
            .toList();
    return new BatchProgress(
        "orders",
        1,
        false,
        Instant.now(),
        1,
        1,
        0,
        0,
        0,
        1,
        1,
        5,
        Map.of("plan", 1L),
        planned,
        2,
        null,
        List.of(),
        Map.of(),
        0,
        0,
        Map.of(),
        Map.of());
  }
}
