package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stateless pipelines against a real broker and local-disk tables, driven in-process. */
class StatelessPipelineIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  private PipelineSpec spec(String topic, String extra) {
    String yaml =
        """
        pipeline: stateless-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 100
        format:
          json:
            schema:
              id: long
              region: string
              device.model: string
        transform:
          - filter: "id %% 10 <> 3"
          - derive: { id_plus: "id + 1000", tag: "upper(region) || '-' || _kafka_partition" }
        sink:
          delta:
            path: %s/table
        checkpoint: %s/checkpoint
        trigger: { processing-time: 100ms }
        %s"""
            .formatted(broker.bootstrapServers(), topic, dir, dir, extra);
    return PipelineParser.parse(yaml, "stateless-it.yaml", Map.of());
  }

  private static List<String> records(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(
          i % 50 == 7
              ? "{\"id\": \"not-a-number-" + i + "\"}"
              : "{\"id\":"
                  + i
                  + ",\"region\":\"eu\",\"device\":{\"model\":\"m"
                  + (i % 3)
                  + "\"},\"extra\":[1,2]}");
    }
    return out;
  }

  private ProgressLog runAvailableNow(PipelineSpec spec) throws Exception {
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress;
  }

  private List<Object[]> table(String name) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve(name).toString(), null)) {
      return TableContents.rows(store);
    }
  }

  @Test
  void landsEveryRecordOnceAcrossBatchesAndRestarts() throws Exception {
    String topic = broker.createTopic("stateless", 2);
    broker.send(topic, 0, records(0, 300));
    broker.send(topic, 1, records(300, 500));
    PipelineSpec spec = spec(topic, "");

    ProgressLog first = runAvailableNow(spec);
    assertThat(first.last(1000)).hasSizeGreaterThanOrEqualTo(5); // 500 offsets, 100 per batch
    assertThat(first.last(1000))
        .allSatisfy(p -> assertThat(p.inputRows()).isLessThanOrEqualTo(101));

    broker.send(topic, 1, records(500, 650));
    ProgressLog second = runAvailableNow(spec);
    assertThat(second.last(1000).get(0).batchId())
        .isEqualTo(first.last(1000).get(first.last(1000).size() - 1).batchId() + 1);

    List<Object[]> rows = table("table");
    Set<Long> ids = new HashSet<>();
    for (Object[] row : rows) {
      // id, region, device(struct), id_plus, tag, _kafka_topic, _kafka_partition, _kafka_offset,
      // _kafka_timestamp
      long id = (Long) row[0];
      assertThat(ids.add(id)).as("id %d once", id).isTrue();
      assertThat(row[1]).isEqualTo("eu");
      assertThat((Object[]) row[2]).containsExactly("m" + (id % 3));
      assertThat(row[3]).isEqualTo(id + 1000);
      assertThat(row[4]).isEqualTo("EU-" + row[6]);
      assertThat(row[5]).isEqualTo(topic);
    }
    Set<Long> expected = new HashSet<>();
    for (long i = 0; i < 650; i++) {
      if (i % 50 != 7 && i % 10 != 3) {
        expected.add(i);
      }
    }
    assertThat(ids).isEqualTo(expected);

    List<Object[]> quarantined = table("table-quarantine");
    assertThat(quarantined).hasSize(13);
    assertThat(quarantined)
        .allSatisfy(
            q -> {
              assertThat(q[0]).isEqualTo(topic);
              assertThat((String) q[6]).contains("field 'id'");
              assertThat(q[7]).isEqualTo("stateless-it");
            });
  }

  @Test
  void replaysAPlannedBatchWithExactlyItsRangesAfterACrash() throws Exception {
    String topic = broker.createTopic("replay", 1);
    broker.send(topic, 0, records(0, 100));
    PipelineSpec spec = spec(topic, "");
    // A crash right after the write-ahead of batch 0 left this entry without a commit: the next
    // start must read exactly [0, 40) in batch 0, even though 100 records are available.
    try (ObjectStore store = ObjectStores.open(dir.resolve("checkpoint").toString(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      checkpoint.writeOffsets(
          new OffsetsEntry(
              0,
              Map.of(new SourcePartition(topic, 0), new OffsetRange(0, 40)),
              OptionalLong.empty(),
              Instant.now(),
              Map.of()));
    }
    ProgressLog progress = runAvailableNow(spec);
    BatchProgress replayed = progress.last(100).get(0);
    assertThat(replayed.batchId()).isZero();
    assertThat(replayed.replayed()).isTrue();
    assertThat(replayed.inputRows()).isEqualTo(40);
    assertThat(progress.last(100).get(1).partitions().get(0).startOffset()).isEqualTo(40);
    assertThat(table("table")).hasSize(100 - 2 /* malformed 7, 57 */ - 10 /* filtered */);
  }

  @Test
  void onceTriggerReadsEverythingInOneBatchIgnoringTheRateLimit() throws Exception {
    String topic = broker.createTopic("once", 1);
    broker.send(topic, 0, records(0, 250));
    ProgressLog progress = new ProgressLog(10);
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec(topic, "")), new TriggerSpec.Once(), progress)) {
      run.run();
    }
    assertThat(progress.last(10))
        .singleElement()
        .satisfies(p -> assertThat(p.inputRows()).isEqualTo(250));
  }

  @Test
  void refusesACheckpointWrittenForADifferentQuery() throws Exception {
    String topic = broker.createTopic("mismatch", 1);
    broker.send(topic, 0, records(0, 10));
    runAvailableNow(spec(topic, ""));
    String changed =
        """
        pipeline: stateless-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/table2
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, dir, dir);
    PipelineSpec other = PipelineParser.parse(changed, "changed.yaml", Map.of());
    assertThatThrownBy(() -> runAvailableNow(other))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageContaining("stateless-it")
        .hasMessageContaining("format.schema")
        .hasMessageContaining("transform");
  }

  @Test
  void processingTimeTriggerPicksUpNewRecordsUntilStopped() throws Exception {
    String topic = broker.createTopic("continuous", 1);
    broker.send(topic, 0, records(0, 20));
    ProgressLog progress = new ProgressLog(100);
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec(topic, "")),
            new TriggerSpec.ProcessingTime(Duration.ofMillis(100)),
            progress)) {
      Thread runner =
          new Thread(
              () -> {
                try {
                  run.run();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      runner.start();
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> progress.last(100).stream().mapToLong(BatchProgress::inputRows).sum() == 20);
      broker.send(topic, 0, records(20, 35));
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> progress.last(100).stream().mapToLong(BatchProgress::inputRows).sum() == 35);
      run.stop();
      runner.join(30_000);
      assertThat(runner.isAlive()).isFalse();
    }
  }
}
