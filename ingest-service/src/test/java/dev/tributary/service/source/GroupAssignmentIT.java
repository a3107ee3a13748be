package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.Assignment;
import dev.tributary.config.StartingOffsets;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.RangeRevokedException;
import dev.tributary.service.engine.SourceInput;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.table.stream.SourceRow;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Planning over an assignment subset: Kafka sources in group assignment (each on its own thread, as
 * each instance is) plan and read ranges for the partitions the group assigned them only, their
 * shares are disjoint and cover the topic, and a member that leaves hands its share to the others.
 */
class GroupAssignmentIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();

  @Test
  void membersPlanDisjointSharesThatCoverTheTopicAndTheSurvivorTakesOverALeavingMembersShare()
      throws Exception {
    String topic = broker.createTopic("group-plan", 4);
    for (int p = 0; p < 4; p++) {
      broker.send(topic, p, IntStream.range(0, 10).mapToObj(i -> "v" + i).toList());
    }
    try (Member a = new Member(topic);
        Member b = new Member(topic)) {
      Awaitility.await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  !a.planned().isEmpty()
                      && !b.planned().isEmpty()
                      && a.planned().size() + b.planned().size() == 4);
      Set<SourcePartition> union = new HashSet<>(a.planned());
      union.addAll(b.planned());
      assertThat(union).hasSize(4);
      // each range is the whole partition, for the member's own partitions only; reading it
      // delivers only them
      assertThat(a.lastPlan.get().range().offsets())
          .allSatisfy((p, r) -> assertThat(r).isEqualTo(new OffsetRange(0, 10)));
      a.readPartitions.clear(); // before b joined, a read every partition
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> a.readPartitions.size() == a.planned().size());
      assertThat(a.readPartitions)
          .containsExactlyInAnyOrderElementsOf(numbers(a.planned()))
          .doesNotContainAnyElementsOf(numbers(b.planned()));

      b.close();
      Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> a.planned().size() == 4);
    }
  }

  private static List<Integer> numbers(Set<SourcePartition> partitions) {
    return partitions.stream().map(SourcePartition::partition).toList();
  }

  /** One group member: plans (and reads each plan once) on its own thread until closed. */
  private final class Member implements AutoCloseable {
    final AtomicReference<PlannedBatch> lastPlan = new AtomicReference<>();
    final Set<Integer> readPartitions = ConcurrentHashMap.newKeySet();
    final AtomicBoolean stop = new AtomicBoolean();
    final Thread thread;
    volatile Throwable failure;

    Member(String topic) {
      KafkaSourceSettings settings =
          new KafkaSourceSettings(
              "group-plan",
              broker.bootstrapServers(),
              List.of(topic),
              Optional.empty(),
              new StartingOffsets.Earliest(),
              OptionalLong.empty(),
              true,
              Map.of("session.timeout.ms", "6000", "heartbeat.interval.ms", "1000"),
              KafkaSourceSettings.Timeouts.reading(Duration.ofSeconds(20)),
              Assignment.GROUP);
      thread =
          new Thread(
              () -> {
                try (KafkaSource source = new KafkaSource(settings)) {
                  while (!stop.get()) {
                    PlannedBatch plan = source.plan(BatchRange.startingAt(Map.of()), true);
                    lastPlan.set(plan);
                    try {
                      source.read(
                          plan.range(),
                          false,
                          new SourceInput() {
                            @Override
                            public void record(ConsumerRecord<byte[], byte[]> record) {
                              readPartitions.add(record.partition());
                            }

                            @Override
                            public void row(SourceRow row) {}
                          });
                    } catch (RangeRevokedException moved) {
                      // a rebalance took a partition mid-read: plan again, as the engine does
                    }
                    source.idle(Duration.ofMillis(100));
                  }
                } catch (Throwable t) {
                  failure = t;
                }
              },
              "member");
      thread.start();
    }

    Set<SourcePartition> planned() {
      assertThat(failure).as("member failed").isNull();
      PlannedBatch plan = lastPlan.get();
      return plan == null ? Set.of() : plan.range().offsets().keySet();
    }

    @Override
    public void close() throws InterruptedException {
      if (stop.compareAndSet(false, true)) {
        thread.join(30_000);
      }
    }
  }
}
