package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.source.DataLossException;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A topic deleted and re-created under a running pipeline's checkpoint (issue 20: offsets that go
 * backwards are new data). With {@code fail-on-data-loss: true} the run stops with advice that
 * keeps the new records; with {@code false} the new records land in the sink, a warning is logged
 * and the commit's {@code commitInfo.dataLoss} says what happened, as JSON.
 */
class TopicRecreatedIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Logger planner =
      (Logger) LoggerFactory.getLogger("dev.tributary.service.source.RangePlanner");
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  @TempDir Path dir;

  @BeforeEach
  void captureWarnings() {
    logged.start();
    planner.addAppender(logged);
  }

  @AfterEach
  void stopCapturing() {
    planner.detachAppender(logged);
  }

  private PipelineSpec spec(String topic, boolean failOnDataLoss) {
    String yaml =
        """
        pipeline: recreated-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            fail-on-data-loss: %s
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/table
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, failOnDataLoss, dir, dir);
    return PipelineParser.parse(yaml, "recreated-it.yaml", Map.of());
  }

  private void runAvailableNow(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private static List<String> records(long from, long to) {
    return LongStream.range(from, to).mapToObj(i -> "{\"id\":" + i + "}").toList();
  }

  private List<Long> ids() throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("table").toString(), null)) {
      List<Long> out = new ArrayList<>();
      TableContents.rows(store).forEach(row -> out.add((Long) row[0]));
      return out;
    }
  }

  private static List<Long> ids(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  /** The {@code dataLoss} of the table's latest commit that records one, parsed. */
  private JsonNode lastDataLoss() throws Exception {
    JsonNode found = null;
    for (TableCommits.Commit c : TableCommits.of(dir.resolve("table"))) {
      Object value = c.info().get("dataLoss");
      if (value != null) {
        found = JSON.readTree(value.toString());
      }
    }
    assertThat(found).as("a commit records dataLoss").isNotNull();
    return found;
  }

  private List<String> warnings() {
    return logged.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void aReCreatedTopicStopsThePipelineAndTheAdviceGivenReadsItsNewRecords() throws Exception {
    String topic = broker.createTopic("recreated", 1);
    broker.send(topic, 0, records(0, 30));
    runAvailableNow(spec(topic, true));
    assertThat(ids()).containsExactlyInAnyOrderElementsOf(ids(0, 30));

    broker.recreateTopic(topic, 1);
    broker.send(topic, 0, records(100, 110));

    assertThatThrownBy(() -> runAvailableNow(spec(topic, true)))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining("Pipeline recreated-it: " + topic + "/0 was deleted and re-created")
        .hasMessageContaining("the checkpoint's position is offset 30")
        .hasMessageContaining("now holds offsets [0, 10)")
        .hasMessageContaining("set source.kafka.fail-on-data-loss: false and run again")
        .hasMessageContaining("reads " + topic + "/0 from offset 0");
    assertThat(ids()).hasSize(30);

    // the advice, followed
    runAvailableNow(spec(topic, false));
    List<Long> expected = new ArrayList<>(ids(0, 30));
    expected.addAll(ids(100, 110));
    assertThat(ids()).containsExactlyInAnyOrderElementsOf(expected);
    JsonNode gap = lastDataLoss().get(0);
    assertThat(gap.get("topic").asText()).isEqualTo(topic);
    assertThat(gap.get("partition").asInt()).isZero();
    assertThat(gap.get("cause").asText()).isEqualTo("partition-reset");
    assertThat(gap.get("from").asLong()).isEqualTo(30);
    assertThat(gap.get("earliest").asLong()).isZero();
    assertThat(gap.get("latest").asLong()).isEqualTo(10);
    assertThat(gap.get("previousTopicId").asText()).isNotEqualTo(gap.get("topicId").asText());
    assertThat(warnings())
        .anySatisfy(
            w -> assertThat(w).contains(topic + "/0").contains("reading it from its start"));

    // and on from there as usual
    broker.send(topic, 0, records(110, 115));
    runAvailableNow(spec(topic, true));
    expected.addAll(ids(110, 115));
    assertThat(ids()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void aReCreatedTopicThatAlreadyHoldsMoreRecordsIsFoundByItsNewTopicId() throws Exception {
    String topic = broker.createTopic("recreated-more", 1);
    broker.send(topic, 0, records(0, 30));
    runAvailableNow(spec(topic, false));

    broker.recreateTopic(topic, 1);
    broker.send(topic, 0, records(200, 250)); // offsets 0..49: past the checkpoint's 30

    runAvailableNow(spec(topic, false));
    List<Long> expected = new ArrayList<>(ids(0, 30));
    expected.addAll(ids(200, 250));
    assertThat(ids()).containsExactlyInAnyOrderElementsOf(expected);
    JsonNode gap = lastDataLoss().get(0);
    assertThat(gap.get("cause").asText()).isEqualTo("partition-reset");
    assertThat(gap.get("from").asLong()).isEqualTo(30);
    assertThat(gap.get("latest").asLong()).isEqualTo(50);
    assertThat(gap.has("previousTopicId")).isTrue();
  }

  @Test
  void partitionsGoneWithTheTopicAreRecordedAndReadFromTheirStartWhenTheyComeBack()
      throws Exception {
    String topic = broker.createTopic("recreated-fewer", 2);
    broker.send(topic, 0, records(0, 20));
    broker.send(topic, 1, records(20, 40));
    runAvailableNow(spec(topic, true));

    broker.recreateTopic(topic, 1);
    broker.send(topic, 0, records(100, 105));

    assertThatThrownBy(() -> runAvailableNow(spec(topic, true)))
        .isInstanceOf(DataLossException.class)
        .hasMessageContaining(topic + "/1 no longer exists")
        .hasMessageContaining("the checkpoint's position on it is offset 20");

    runAvailableNow(spec(topic, false));
    List<Long> expected = new ArrayList<>(ids(0, 40));
    expected.addAll(ids(100, 105));
    assertThat(ids()).containsExactlyInAnyOrderElementsOf(expected);
    JsonNode gaps = lastDataLoss();
    assertThat(gaps).hasSize(2);
    assertThat(gaps.get(0).get("partition").asInt()).isEqualTo(1);
    assertThat(gaps.get(0).get("cause").asText()).isEqualTo("partition-gone");
    assertThat(gaps.get(0).get("from").asLong()).isEqualTo(20);
    assertThat(gaps.get(1).get("partition").asInt()).isZero();
    assertThat(gaps.get(1).get("cause").asText()).isEqualTo("partition-reset");
    assertThat(warnings()).anySatisfy(w -> assertThat(w).contains("going on without it"));

    // the partition comes back (and a third one appears): both are read from their start
    try (Admin admin = broker.admin()) {
      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get();
    }
    broker.send(topic, 1, records(300, 304));
    broker.send(topic, 2, records(400, 403));
    runAvailableNow(spec(topic, true));
    expected.addAll(ids(300, 304));
    expected.addAll(ids(400, 403));
    assertThat(ids()).containsExactlyInAnyOrderElementsOf(expected);
  }
}
