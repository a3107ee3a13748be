package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.stateful.StatefulProcessor;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stateful processor of a stage-2 sub-pipeline ({@link StatefulProcessor#forExchange}) over
 * records of one repartition partition: rows go through deduplication and the window as parsed rows
 * do, markers advance the watermark without a row, a foreign record fails the batch.
 */
class ExchangeProcessorTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final long MINUTE = 60_000_000L;
  @TempDir Path dir;

  private StatefulPlan plan() throws Exception {
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: exchanged
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
        format: { json: { schema: { event_id: string, event_type: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes }
        deduplicate: { keys: [event_id] }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [event_type]
          measures: { events: count() }
        output-mode: append
        sink: { delta: { path: %s/t } }
        checkpoint: %s/c
        """
                .formatted(dir, dir),
            "exchanged.yaml",
            Map.of());
    return PipelineFactory.compile(spec).stateful().orElseThrow();
  }

  private Object[] row(StatefulPlan plan, String id, String type, int minute) {
    List<String> names = plan.inputSchema().fieldNames();
    Object[] row = new Object[names.size()];
    row[names.indexOf("event_id")] = id;
    row[names.indexOf("event_type")] = type;
    row[names.indexOf("event_ts")] = T0.plusSeconds(60L * minute);
    return row;
  }

  private static long micros(int minute) {
    return T0.getEpochSecond() * 1_000_000L + minute * MINUTE;
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
    return new ConsumerRecord<>("tributary-exchanged-repartition", 2, offset, null, value);
  }

  private record Batch(OptionalLong next, List<Object[]> out) {}

  private static Batch batch(
      RecordProcessor p,
      long id,
      OptionalLong evict,
      OptionalLong late,
      List<ConsumerRecord<byte[], byte[]>> records)
      throws Exception {
    p.beginBatch(new RecordProcessor.BatchContext(id, T0, evict, late, Set.of(), Map.of()));
    InMemoryBatchWriter main = new InMemoryBatchWriter();
    BatchOutputs outputs =
        new BatchOutputs(main, new InMemoryBatchWriter(), new InMemoryBatchWriter());
    for (ConsumerRecord<byte[], byte[]> r : records) {
      p.process(r, outputs);
    }
    p.endBatch(outputs);
    p.commit(id);
    return new Batch(p.nextWatermarkMicros(), main.rows);
  }

  @Test
  void rowsGoThroughTheOperatorsAndAMarkerAdvancesTheWatermarkWithoutARow() throws Exception {
    StatefulPlan plan = plan();
    ExchangeRecords exchange = new ExchangeRecords(plan, 4);
    ObjectStore store =
        ObjectStores.open(Files.createDirectories(dir.resolve("c/partitions/2")).toString(), null);
    try (RecordProcessor p =
        StatefulProcessor.forExchange("exchanged.2", plan, exchange, store, dir.resolve("s"))) {
      assertThat(p.planBatch(0)).isEmpty(); // the joins ran in stage 1
      Batch first =
          batch(
              p,
              0,
              OptionalLong.empty(),
              OptionalLong.empty(),
              List.of(
                  record(0, exchange.row(row(plan, "a", "click", 1)).value()),
                  record(
                      1, exchange.row(row(plan, "a", "click", 1)).value()), // a duplicate: dropped
                  record(2, exchange.row(row(plan, "b", "view", 2)).value()),
                  record(
                      3,
                      exchange
                          .markers(micros(30))
                          .get(2)
                          .value()))); // another partition's rows reached minute 30
      assertThat(first.out()).isEmpty();
      assertThat(first.next())
          .hasValue(micros(20)); // 30 - 10: the marker, not only the rows (2 - 10)

      Batch noData = batch(p, 1, first.next(), OptionalLong.empty(), List.of());
      assertThat(noData.out())
          .extracting(r -> r[2], r -> r[3])
          .containsExactlyInAnyOrder(Tuple.tuple("click", 1L), Tuple.tuple("view", 1L));
    }
  }

  @Test
  void aMarkerAloneMovesTheWatermarkAndARowBehindItIsLate() throws Exception {
    StatefulPlan plan = plan();
    ExchangeRecords exchange = new ExchangeRecords(plan, 1);
    ObjectStore store =
        ObjectStores.open(Files.createDirectories(dir.resolve("c/partitions/0")).toString(), null);
    try (RecordProcessor p =
        StatefulProcessor.forExchange("exchanged.0", plan, exchange, store, dir.resolve("s"))) {
      Batch first =
          batch(
              p,
              0,
              OptionalLong.empty(),
              OptionalLong.empty(),
              List.of(record(0, exchange.markers(micros(60)).get(0).value())));
      assertThat(first.next()).hasValue(micros(50));
      p.beginBatch(
          new RecordProcessor.BatchContext(1, T0, first.next(), first.next(), Set.of(), Map.of()));
      InMemoryBatchWriter late = new InMemoryBatchWriter();
      BatchOutputs outputs =
          new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), late);
      p.process(record(1, exchange.row(row(plan, "c", "click", 40)).value()), outputs);
      p.endBatch(outputs);
      assertThat(late.rows).hasSize(1);
      assertThat(outputs.inputRows()).isEqualTo(1); // markers are not input rows
    }
  }

  @Test
  void aRecordThatIsNotAnExchangeRecordFailsNamingIt() throws Exception {
    StatefulPlan plan = plan();
    ExchangeRecords exchange = new ExchangeRecords(plan, 4);
    ObjectStore store =
        ObjectStores.open(Files.createDirectories(dir.resolve("c/partitions/2")).toString(), null);
    try (RecordProcessor p =
        StatefulProcessor.forExchange("exchanged.2", plan, exchange, store, dir.resolve("s"))) {
      p.beginBatch(new RecordProcessor.BatchContext(0, T0, OptionalLong.empty()));
      BatchOutputs outputs =
          new BatchOutputs(new InMemoryBatchWriter(), new InMemoryBatchWriter(), null);
      assertThatThrownBy(() -> p.process(record(7, "{\"event_id\":1}".getBytes()), outputs))
          .hasMessageContaining("exchanged.2")
          .hasMessageContaining("tributary-exchanged-repartition/2@7")
          .hasMessageContaining("unknown kind");
    }
  }
}
