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

  /**
   * A progress record of a stage-1 batch of the 4-partition topic {@code events}: {@code read} maps
   * the partitions it read to where it read them to (records in each, their rows' maximum {@code
   * maxMicros}), {@code latest} every partition's latest offset.
   */
  private static byte[] progress(
      ExchangeRecords exchange, OptionalLong maxMicros, Map<Integer, Long> read, long... latest) {
    List<ExchangeRecords.SourcePosition> positions = new java.util.ArrayList<>();
    for (int p = 0; p < latest.length; p++) {
      Long to = read.get(p);
      positions.add(
          new ExchangeRecords.SourcePosition(
              "events",
              p,
              to == null ? -1 : to,
              to != null && to > 0,
              latest[p],
              to != null && to > 0 ? maxMicros : OptionalLong.empty()));
    }
    return exchange.progress(new ExchangeRecords.Progress(positions)).get(2).value();
  }

  private static Batch noRows(RecordProcessor p, long id, Batch before, byte[]... progress)
      throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
    for (byte[] value : progress) {
      records.add(record(100 + records.size(), value));
    }
    return batch(p, id, before.next(), before.next(), records);
  }

  private RecordProcessor subPipeline(StatefulPlan plan, ExchangeRecords exchange, String name)
      throws Exception {
    ObjectStore store =
        ObjectStores.open(Files.createDirectories(dir.resolve(name + "/c")).toString(), null);
    return StatefulProcessor.forExchange(
        "exchanged.2", plan, exchange, store, dir.resolve(name + "/s"));
  }

  /**
   * The race a slow stage 1 made (docs/DESIGN.md, "The agreed watermark"): instance A reads source
   * partitions 0 and 1 up to minute 60 before instance B has read partitions 2 and 3, which hold
   * records A saw as their latest offsets. The watermark waits for B (its partitions are behind and
   * have no event time yet), then follows B's progress, so B's rows from minute 3 are on time and
   * the window [0, 5) holds both clicks. With the batch maximum sent to every partition (the
   * earlier markers), A's minute 60 made B's rows late.
   */
  @Test
  void theWatermarkWaitsForBehindSourcePartitionsNotTheFastestInstance() throws Exception {
    StatefulPlan plan = plan();
    ExchangeRecords exchange = new ExchangeRecords(plan, 4);
    try (RecordProcessor p = subPipeline(plan, exchange, "race")) {
      Batch fast =
          batch(
              p,
              0,
              OptionalLong.empty(),
              OptionalLong.empty(),
              List.of(
                  record(0, exchange.row(row(plan, "a1", "click", 3)).value()),
                  record(
                      1,
                      progress(
                          exchange,
                          OptionalLong.of(micros(60)),
                          Map.of(0, 400L, 1, 400L),
                          400,
                          400,
                          400,
                          400))));
      assertThat(fast.next()).hasValue(0L); // the epoch: 2 and 3 are behind without an event time
      Batch slow =
          batch(
              p,
              1,
              fast.next(),
              fast.next(),
              List.of(
                  record(2, exchange.row(row(plan, "b1", "click", 3)).value()),
                  record(
                      3,
                      progress(
                          exchange,
                          OptionalLong.of(micros(5)),
                          Map.of(2, 100L, 3, 100L),
                          400,
                          400,
                          400,
                          400))));
      assertThat(slow.next()).hasValue(micros(-5)); // 2 and 3 still behind: their minute 5 - 10
      Batch caughtUp =
          noRows(
              p,
              2,
              slow,
              progress(
                  exchange,
                  OptionalLong.of(micros(58)),
                  Map.of(2, 400L, 3, 400L),
                  400,
                  400,
                  400,
                  400));
      assertThat(caughtUp.next()).hasValue(micros(50)); // none behind: the maximum, 60 - 10
      Batch closing = noRows(p, 3, caughtUp);
      assertThat(closing.out())
          .extracting(r -> r[2], r -> r[3])
          .containsExactly(Tuple.tuple("click", 2L));
    }
  }

  /**
   * A partition that is caught up holds nothing back, whether idle or empty: its owner covered it
   * to its latest offset. New records in it make it behind again, at its own maximum.
   */
  @Test
  void caughtUpPartitionsHoldNothingBackAndNewRecordsInOneHoldItAtItsMaximum() throws Exception {
    StatefulPlan plan = plan();
    ExchangeRecords exchange = new ExchangeRecords(plan, 4);
    try (RecordProcessor p = subPipeline(plan, exchange, "idle")) {
      Batch first =
          batch(
              p,
              0,
              OptionalLong.empty(),
              OptionalLong.empty(),
              List.of(
                  // B announced its partitions: 2 is empty, 3 has its 50 records read long ago
                  record(
                      0,
                      progress(exchange, OptionalLong.empty(), Map.of(2, 0L, 3, 50L), 0, 0, 0, 50)),
                  record(
                      1,
                      progress(
                          exchange,
                          OptionalLong.of(micros(30)),
                          Map.of(0, 10L, 1, 10L),
                          10,
                          10,
                          0,
                          50))));
      assertThat(first.next()).hasValue(micros(20));
      // partition 3 gets records B has not read yet; A moves on to minute 90
      Batch second =
          noRows(
              p,
              1,
              first,
              progress(
                  exchange, OptionalLong.of(micros(90)), Map.of(0, 20L, 1, 20L), 20, 20, 0, 60));
      // 3 is behind without a maximum of its own (its records were read without event times): held
      assertThat(second.next()).hasValue(micros(20));
      Batch third =
          noRows(
              p,
              2,
              second,
              progress(exchange, OptionalLong.of(micros(85)), Map.of(3, 60L), 20, 20, 0, 60));
      assertThat(third.next()).hasValue(micros(80));
    }
  }

  /**
   * The clock is state of the sub-pipeline's checkpoint: a sub-pipeline reopened after batch 0
   * still holds the watermark for the behind partitions it heard of.
   */
  @Test
  void theSourceClockIsRestoredFromTheCheckpoint() throws Exception {
    StatefulPlan plan = plan();
    ExchangeRecords exchange = new ExchangeRecords(plan, 4);
    byte[] aAt60 =
        progress(exchange, OptionalLong.of(micros(60)), Map.of(0, 9L, 1, 9L), 9, 9, 30, 30);
    byte[] bAt20 =
        progress(exchange, OptionalLong.of(micros(20)), Map.of(2, 10L, 3, 10L), 9, 9, 30, 30);
    Batch first;
    try (RecordProcessor p = subPipeline(plan, exchange, "restart")) {
      first =
          batch(
              p,
              0,
              OptionalLong.empty(),
              OptionalLong.empty(),
              List.of(record(0, bAt20), record(1, aAt60)));
      assertThat(first.next()).hasValue(micros(10));
    }
    try (RecordProcessor p = subPipeline(plan, exchange, "restart")) {
      p.restored(first.next(), first.next());
      Batch second =
          noRows(
              p,
              1,
              first,
              progress(
                  exchange, OptionalLong.of(micros(90)), Map.of(0, 12L, 1, 12L), 12, 12, 30, 30));
      assertThat(second.next()).hasValue(micros(10)); // 2 and 3 still behind at minute 20
    }
  }
}
