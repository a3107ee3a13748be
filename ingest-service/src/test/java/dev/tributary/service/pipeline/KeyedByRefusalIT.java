package dev.tributary.service.pipeline;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.testing.KafkaTestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a keyed-by checkpoint refuses at start (docs/DESIGN.md, "Keyed-by sources: no exchange",
 * "What is refused"), against a real broker: a source topic that got more partitions (keys moved to
 * other partitions, their state would not follow), and switching {@code keyed-by} on or off on an
 * existing checkpoint. The refusal names the pipeline, the topic and both counts, and writes
 * nothing: every file under the pipeline's checkpoint and tables is as the last good run left it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KeyedByRefusalIT {
  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void addedSourcePartitionsAreRefusedAtStartWithTheCountsAndNothingIsWritten() throws Exception {
    String topic = broker.createTopic("keyed-resized", 2);
    produce(topic, 0, 60);
    PipelineSpec spec = spec("keyed-resized", topic, "keyed-by: [user_id]");
    run(spec);
    Path base = dir.resolve("keyed-resized");
    assertThat(base.resolve("checkpoint/partitions/1")).isDirectory();
    try (Admin admin = broker.admin()) {
      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get(30, SECONDS);
      Awaitility.await("the topic has 3 partitions")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin
                          .describeTopics(List.of(topic))
                          .allTopicNames()
                          .get(30, SECONDS)
                          .get(topic)
                          .partitions()
                          .size()
                      == 3);
    }
    produce(topic, 60, 60); // work the refused run would otherwise write
    Map<String, Long> before = files(base);

    assertThatThrownBy(() -> run(spec))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageStartingWith(
            "Cannot start pipeline keyed-resized: source topic " + topic + " has 3 partitions now")
        .hasMessageContaining("source.partitions changed from [2] to [3]")
        .hasMessageContaining("Added partitions move keys to other partitions")
        .hasMessageContaining("Start a new checkpoint location");
    assertThat(files(base)).as("nothing written").isEqualTo(before);
    assertThat(base.resolve("checkpoint/partitions/2")).doesNotExist();
  }

  @Test
  void switchingKeyedByOnOrOffOnACheckpointIsRefused() throws Exception {
    String topic = broker.createTopic("keyed-switch", 2);
    produce(topic, 0, 60);
    run(spec("keyed-on", topic, "keyed-by: [user_id]"));
    run(spec("keyed-off", topic, ""));
    produce(topic, 60, 60);

    assertThatThrownBy(() -> run(spec("keyed-on", topic, "")))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageStartingWith("Cannot start pipeline keyed-on: ")
        .hasMessageContaining("source.keyed-by changed from [user_id] to (absent)");
    assertThatThrownBy(() -> run(spec("keyed-off", topic, "keyed-by: [user_id]")))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageStartingWith("Cannot start pipeline keyed-off: ")
        .hasMessageContaining("source.keyed-by changed from (absent) to [user_id]");
  }

  private void produce(String topic, int from, int count) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = from; i < from + count; i++) {
        String user = "u" + i % 7;
        producer.send(
            new ProducerRecord<>(
                topic,
                bytes(user),
                bytes(
                    "{\"event_id\":\"e"
                        + i
                        + "\",\"user_id\":\""
                        + user
                        + "\",\"event_ts\":\""
                        + T0.plusSeconds(i * 30L)
                        + "\",\"amount\":"
                        + i
                        + "}")));
      }
      producer.flush();
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private PipelineSpec spec(String id, String topic, String keyedBy) {
    Path base = dir.resolve(id);
    return PipelineParser.parse(
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: group
            %s
            properties: { session.timeout.ms: "6000", heartbeat.interval.ms: "1000" }
        format:
          json:
            schema: { event_id: string, user_id: string, event_ts: timestamp, amount: long }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id, user_id, event_ts] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [user_id]
          measures: { events: count(), amount: sum(amount) }
        output-mode: append
        sink:
          delta: { path: %s/sink }
        quarantine:
          delta: { path: %s/quarantine }
        checkpoint: %s/checkpoint
        """
            .formatted(id, broker.bootstrapServers(), topic, keyedBy, base, base, base),
        id + ".yaml",
        Map.of());
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  /** Every file under {@code root} (relative path) with its size. */
  private static Map<String, Long> files(Path root) throws Exception {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
        out.put(root.relativize(p).toString(), Files.size(p));
      }
    }
    return out;
  }
}
