package dev.tributary.service.stateful;

import static dev.tributary.service.join.DimensionTables.customer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.InMemoryBatchWriter;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.join.DimensionTables;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stage 1's front: the checked input rows of the stateful operators, as the single-instance
 * processor makes them (quarantine of the whole record, filtered inner joins), and the batch's
 * maximum event time.
 */
class ExchangeFrontTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  private final List<Object[]> quarantined = new ArrayList<>();
  private final List<Object[]> sent = new ArrayList<>();
  private BatchOutputs outputs = outputs();
  private ExchangeFront front;

  @AfterEach
  void close() {
    if (front != null) {
      front.close();
    }
  }

  private ExchangeFront front(String join, boolean lateEvents) throws Exception {
    String yaml =
        """
        pipeline: front
        source: { kafka: { bootstrap-servers: "127.0.0.1:1", topics: [events] } }
        format:
          json:
            schema: { event_id: string, customer_id: string, note: string, event_ts: timestamp }
        %s
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 1 hour }
          group-by: [customer_id]
          measures: { n: count() }
        output-mode: append
        %s
        sink: { delta: { path: %s/out } }
        checkpoint: %s/checkpoint
        """
            .formatted(
                join,
                lateEvents ? "late-events: { delta: { path: " + dir + "/late } }" : "",
                dir,
                dir);
    PipelineSpec spec = PipelineParser.parse(yaml, "front.yaml", Map.of());
    CompiledPipeline compiled = PipelineFactory.bindJoins(PipelineFactory.compile(spec));
    front =
        new ExchangeFront(
            "front", compiled.processor(), compiled.stateful().orElseThrow(), lateEvents);
    front.beginBatch(new RecordProcessor.BatchContext(7, T, OptionalLong.empty()));
    return front;
  }

  private BatchOutputs outputs() {
    return new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(quarantined), null);
  }

  private void process(long offset, String json) throws Exception {
    front.process(record(offset, json), outputs, sent::add);
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset, String json) {
    byte[] value = json.getBytes(StandardCharsets.UTF_8);
    return new ConsumerRecord<>(
        "events",
        3,
        offset,
        T.toEpochMilli(),
        TimestampType.CREATE_TIME,
        0,
        value.length,
        null,
        value,
        new RecordHeaders(),
        Optional.empty());
  }

  @Test
  void goodRecordsBecomeInputRowsAndTheBatchKeepsTheirMaximumEventTime() throws Exception {
    front("", false);
    process(
        0, "{\"event_id\":\"e1\",\"customer_id\":\"c1\",\"event_ts\":\"2026-01-01T00:05:00Z\"}");
    process(
        1, "{\"event_id\":\"e2\",\"customer_id\":\"c2\",\"event_ts\":\"2026-01-01T00:20:00Z\"}");
    process(
        2, "{\"event_id\":\"e3\",\"customer_id\":\"c1\",\"event_ts\":\"2026-01-01T00:10:00Z\"}");
    process(
        3, "{\"event_id\":\"e4\",\"customer_id\":\"c1\"}"); // no event time: a row, ignored by the
    // maximum

    assertThat(sent).hasSize(4);
    assertThat(sent.get(0))
        .containsExactly(
            "e1", "c1", null, Instant.parse("2026-01-01T00:05:00Z"), "events", 3, 0L, T);
    assertThat(front.maxEventTimeMicros())
        .hasValue(Times.micros(Instant.parse("2026-01-01T00:20:00Z")));
    assertThat(quarantined).isEmpty();

    // the maximum is per batch
    front.beginBatch(new RecordProcessor.BatchContext(8, T, OptionalLong.empty()));
    assertThat(front.maxEventTimeMicros()).isEmpty();
    process(4, "{\"event_id\":\"e5\",\"customer_id\":\"c1\"}");
    assertThat(front.maxEventTimeMicros()).isEmpty();
    process(
        5, "{\"event_id\":\"e6\",\"customer_id\":\"c1\",\"event_ts\":\"2026-01-01T00:01:00Z\"}");
    assertThat(front.maxEventTimeMicros())
        .hasValue(Times.micros(Instant.parse("2026-01-01T00:01:00Z")));
  }

  @Test
  void aRecordThatCannotBeParsedOrCannotEnterStateIsQuarantinedWholeAndAddsNoEventTime()
      throws Exception {
    front("", false);
    process(0, "not json");
    // its window would end in the year 10000: refused by the input checks, before any row goes out
    process(
        1, "{\"event_id\":\"e1\",\"customer_id\":\"c1\",\"event_ts\":\"9999-12-31T23:30:00Z\"}");
    // a group-by value a state key cannot hold
    process(
        2,
        "{\"event_id\":\"e2\",\"customer_id\":\"\\ud800\",\"event_ts\":\"2026-01-01T00:05:00Z\"}");

    assertThat(sent).isEmpty();
    assertThat(front.maxEventTimeMicros()).isEmpty();
    assertThat(quarantined).extracting(r -> r[2]).containsExactly(0L, 1L, 2L);
    assertThat(quarantined).extracting(r -> r[8]).containsOnly(7L); // the batch id
    assertThat((String) quarantined.get(1)[6])
        .startsWith("column 'event_ts': event time 9999-12-31T23:30:00Z falls in a window");
    assertThat((String) quarantined.get(2)[6])
        .startsWith("column 'customer_id': the string has an unpaired");
  }

  @Test
  void withALateEventsTableEveryRowMustFitItEvenIfItTurnsOutNotToBeLate() throws Exception {
    String unpairedNote =
        "{\"event_id\":\"e1\",\"customer_id\":\"c1\",\"note\":\"\\ud800\","
            + "\"event_ts\":\"2026-01-01T00:05:00Z\"}";
    front("", false);
    process(0, unpairedNote);
    assertThat(sent).as("the note reaches neither state nor the sink").hasSize(1);
    front.close();

    sent.clear();
    front("", true);
    process(0, unpairedNote);
    assertThat(sent).isEmpty();
    assertThat(quarantined)
        .singleElement()
        .satisfies(r -> assertThat((String) r[6]).startsWith("column 'note'"));
  }

  @Test
  void anInnerJoinWithoutAMatchIsFilteredAndAMatchGivesTheJoinedRow() throws Exception {
    DimensionTables customers =
        DimensionTables.create(
            dir.resolve("customers"), List.<Object[]>of(customer("c1", "gold", "eu", 1)));
    front(
        """
        join:
          - delta: { path: %s }
            on: [customer_id]
            type: inner
            columns: [segment]
        """
            .formatted(customers.path()),
        false);
    Map<String, String> versions = front.planBatch(1);
    assertThat(versions).isNotEmpty();
    front.beginBatch(
        RecordProcessor.BatchContext.of(
            1, T, OptionalLong.empty(), OptionalLong.empty(), Set.of(), versions));
    process(
        0, "{\"event_id\":\"e1\",\"customer_id\":\"c9\",\"event_ts\":\"2026-01-01T00:05:00Z\"}");
    process(
        1, "{\"event_id\":\"e2\",\"customer_id\":\"c1\",\"event_ts\":\"2026-01-01T00:06:00Z\"}");

    assertThat(sent)
        .singleElement()
        .satisfies(r -> assertThat(r).startsWith("e2", "c1").endsWith("gold"));
    assertThat(quarantined).isEmpty();
    assertThat(front.maxEventTimeMicros())
        .hasValue(Times.micros(Instant.parse("2026-01-01T00:06:00Z")));
    assertThat(filtered(outputs)).isEqualTo(1);
  }

  private static long filtered(BatchOutputs outputs) {
    return outputs.filteredRows();
  }
}
