package dev.tributary.service.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TopicContents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka to Kafka through the command's path ({@link PipelineRun}): the seed's clean-events stream
 * (parse, filter, derive, key from an expression) exactly once across runs, and the same batch fed
 * to a Delta table and a topic ({@code sinks:}).
 */
class KafkaSinkPipelineIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  private PipelineSpec spec(String in, String sinks) {
    String yaml =
        """
        pipeline: clean-events
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 30
        format:
          json:
            schema: { event_id: long, user_id: string, event_type: string, amount_cents: long }
        transform:
          - filter: "event_type IS NOT NULL"
          - derive: { amount: "amount_cents / 100.0" }
        %s
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), in, sinks, dir);
    return PipelineParser.parse(yaml, "clean-events.yaml", Map.of());
  }

  private static void runAvailableNow(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private static List<String> events(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      if (i % 20 == 7) {
        out.add("not json " + i);
      } else {
        String type = i % 10 == 5 ? "null" : "\"click\"";
        out.add(
            "{\"event_id\":"
                + i
                + ",\"user_id\":\"u"
                + (i % 3)
                + "\",\"event_type\":"
                + type
                + ",\"amount_cents\":"
                + (i * 10)
                + "}");
      }
    }
    return out;
  }

  /** The event ids a run must send: neither malformed (quarantined) nor filtered out. */
  private static List<Long> expected(int to) {
    List<Long> ids = new ArrayList<>();
    for (long i = 0; i < to; i++) {
      if (i % 20 != 7 && i % 10 != 5) {
        ids.add(i);
      }
    }
    return ids;
  }

  @Test
  void sendsEveryKeptRecordOnceAcrossRunsKeyedByTheExpression() throws Exception {
    String in = broker.createTopic("events", 2);
    String out = broker.createTopic("clean-events", 3);
    broker.send(in, 0, events(0, 70));
    broker.send(in, 1, events(70, 100));
    PipelineSpec spec = spec(in, "sink: { kafka: { topic: " + out + ", key: \"user_id\" } }");
    runAvailableNow(spec);
    broker.send(in, 1, events(100, 130));
    runAvailableNow(spec);

    List<ConsumerRecord<byte[], byte[]>> records =
        TopicContents.readCommitted(broker.bootstrapServers(), out);
    List<Long> ids = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      JsonNode value = JSON.readTree(r.value());
      ids.add(value.get("event_id").asLong());
      assertThat(new String(r.key(), StandardCharsets.UTF_8))
          .isEqualTo(value.get("user_id").asText());
      assertThat(value.get("amount").asDouble())
          .isEqualTo(value.get("amount_cents").asLong() / 100.0);
      assertThat(value.get("_kafka_topic").asText()).isEqualTo(in);
    }
    assertThat(ids).containsExactlyInAnyOrderElementsOf(expected(130));
  }

  @Test
  void feedsADeltaTableAndATopicFromTheSameBatches() throws Exception {
    String in = broker.createTopic("events-fan", 2);
    String out = broker.createTopic("bronze-events", 1);
    broker.send(in, 0, events(0, 50));
    broker.send(in, 1, events(50, 90));
    runAvailableNow(
        spec(
            in,
            """
            sinks:
              - delta: { path: "%s/bronze" }
              - kafka: { topic: %s }
            """
                .formatted(dir, out)));
    List<Long> table = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("bronze").toString(), null)) {
      TableContents.rows(store).forEach(r -> table.add((Long) r[0]));
    }
    List<Long> topic = new ArrayList<>();
    for (var r : TopicContents.readCommitted(broker.bootstrapServers(), out)) {
      topic.add(JSON.readTree(r.value()).get("event_id").asLong());
    }
    assertThat(table).containsExactlyInAnyOrderElementsOf(expected(90));
    assertThat(topic).containsExactlyInAnyOrderElementsOf(expected(90));
  }

  @Test
  void aContinuousRunSendsRecordsAsTheyArriveEachOnceAcrossARestart() throws Exception {
    String in = broker.createTopic("events-live", 2);
    String out = broker.createTopic("clean-events-live", 2);
    PipelineSpec spec = spec(in, "sink: { kafka: { topic: " + out + ", key: \"user_id\" } }");
    try (Continuously first = new Continuously(spec)) {
      broker.send(in, 0, events(0, 40));
      // the run never ends by itself: the records reach the topic while it runs
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(sentIds(out)).hasSameSizeAs(expected(40)));
      broker.send(in, 1, events(40, 60));
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(sentIds(out)).hasSameSizeAs(expected(60)));
    }
    try (Continuously second = new Continuously(spec)) {
      broker.send(in, 0, events(60, 80));
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(sentIds(out)).hasSameSizeAs(expected(80)));
    }
    assertThat(sentIds(out)).containsExactlyInAnyOrderElementsOf(expected(80));
  }

  private static List<Long> sentIds(String topic) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (var r : TopicContents.readCommitted(KafkaTestBroker.shared().bootstrapServers(), topic)) {
      ids.add(JSON.readTree(r.value()).get("event_id").asLong());
    }
    return ids;
  }

  /** A run on the continuous trigger in a thread of its own, stopped and closed at close. */
  private static final class Continuously implements AutoCloseable {
    private final PipelineRun run;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Continuously(PipelineSpec spec) throws Exception {
      run =
          PipelineRun.open(
              PipelineFactory.compile(spec),
              new TriggerSpec.Continuous(Duration.ofMillis(300)),
              new ProgressLog(100));
      thread =
          new Thread(
              () -> {
                try {
                  run.run();
                } catch (Throwable t) {
                  failure.set(t);
                }
              },
              "continuous-run");
      thread.start();
    }

    @Override
    public void close() throws Exception {
      run.stop();
      thread.join(30_000);
      run.close();
      assertThat(failure.get()).as("the run's failure").isNull();
      assertThat(thread.isAlive()).as("the run stopped").isFalse();
    }
  }
}
