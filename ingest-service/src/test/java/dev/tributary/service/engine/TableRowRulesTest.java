package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.expr.Transforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.testing.SparkLikeTables;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TableRules;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.DataWriteOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with the row rules Spark declares (a CHECK constraint, an invariant, a generated column,
 * an identity column GENERATED ALWAYS) appended to through the real processor, sink and a local
 * Delta table: refused rows go to quarantine with the rule named, generated values are computed,
 * identity values follow the high-water mark the commit moves, and what cannot be honoured is
 * refused at start.
 */
class TableRowRulesTest {
  @TempDir Path dir;
  private ObjectStore store;
  private final InMemoryBatchWriter quarantine = new InMemoryBatchWriter();
  private long offset;

  @BeforeEach
  void open() throws Exception {
    store = ObjectStores.open(dir.resolve("spark-made").toString(), null);
  }

  @AfterEach
  void close() throws Exception {
    store.close();
  }

  /** The table as Spark makes it: seq identity (100 by 10), amount invariant, doubled generated. */
  private void makeLikeSpark(Map<String, String> constraints) throws Exception {
    SparkLikeTables.withRowRules(store, constraints);
  }

  private static StatelessProcessor declared(String... columns) {
    LinkedHashMap<String, String> declared = new LinkedHashMap<>();
    for (String c : columns) {
      declared.put(c, c.equals("id") ? "string" : "long");
    }
    JsonRecordParser parser =
        JsonRecordParser.forColumns(declared, JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
    var transforms =
        Transforms.compile(StatelessProcessor.transformInput(parser.schema()), List.of());
    return new StatelessProcessor("orders", parser, transforms, List.of());
  }

  private record Run(DeltaTableSink sink, StatelessProcessor processor) {}

  /** What PipelineFactory does at start for a stateless append to a table with rules. */
  private Run start(StatelessProcessor plain) throws Exception {
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    Snapshot snapshot = table.snapshot();
    TableRowRules rules =
        TableRowRules.compile(
            "orders",
            table.location(),
            TableRules.of(snapshot),
            snapshot.schema(),
            plain.outputSchema());
    DeltaTableSink sink =
        new DeltaTableSink("orders", store, table, rules, List.of(), DataWriteOptions.defaults());
    return new Run(sink, plain.withTableRules(rules));
  }

  private ConsumerRecord<byte[], byte[]> record(String json) {
    byte[] value = json.getBytes(StandardCharsets.UTF_8);
    return new ConsumerRecord<>(
        "orders",
        0,
        offset++,
        1000,
        TimestampType.CREATE_TIME,
        0,
        value.length,
        null,
        value,
        new RecordHeaders(),
        Optional.empty());
  }

  private void batch(Run run, long batchId, String... records) throws Exception {
    batch(run, batchId, true, records);
  }

  /** One batch; commit false: a crash after the data files, before the commit. */
  private void batch(Run run, long batchId, boolean commit, String... records) throws Exception {
    BatchTag tag = new BatchTag(new TransactionId("orders@c", batchId), List.of());
    try (TableSink.BatchWriter writer = run.sink().begin(tag)) {
      BatchOutputs outputs = new BatchOutputs(writer, quarantine, null);
      run.processor()
          .beginBatch(
              new RecordProcessor.BatchContext(batchId, Instant.EPOCH, OptionalLong.empty()));
      for (String r : records) {
        run.processor().process(record(r), outputs);
      }
      if (commit) {
        writer.commit(Map.of());
      }
    }
  }

  /** [seq, id, amount, doubled] of the table's rows, by seq. */
  private List<List<Object>> rows() throws Exception {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] r : TableContents.rows(store)) {
      out.add(java.util.Arrays.asList(r[0], r[1], r[2], r[3]));
    }
    out.sort(Comparator.comparing(r -> (Long) r.get(0)));
    return out;
  }

  private List<String> quarantineErrors() {
    return quarantine.rows.stream().map(r -> (String) r[QuarantineRows.ERROR_INDEX]).toList();
  }

  @Test
  void refusedRowsAreQuarantinedGeneratedValuesComputedAndIdentitiesFollowTheMark()
      throws Exception {
    makeLikeSpark(Map.of("delta.constraints.positive", "amount > 0"));
    Run run = start(declared("id", "amount"));
    batch(
        run,
        0,
        "{\"id\":\"a\",\"amount\":5}",
        "{\"id\":\"b\",\"amount\":-1}",
        "{\"id\":\"c\",\"amount\":5000}",
        "{\"id\":\"d\",\"amount\":null}",
        "{\"id\":\"e\",\"amount\":7}");
    assertThat(rows()).containsExactly(List.of(100L, "a", 5L, 10L), List.of(110L, "e", 7L, 14L));
    assertThat(quarantineErrors())
        .containsExactly(
            "violates the CHECK constraint positive (amount > 0) of the table at "
                + store.location()
                + " (false or null on the row)",
            "violates the invariant amount (amount < 1000) of the table at "
                + store.location()
                + " (false or null on the row)",
            // Delta refuses a row on which the constraint is null, as on false
            "violates the CHECK constraint positive (amount > 0) of the table at "
                + store.location()
                + " (false or null on the row)");
    Snapshot after = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    assertThat(TableRules.of(after).identity("seq").highWaterMark()).isEqualTo(110L);

    // a restarted pipeline continues after the mark its last commit moved
    batch(start(declared("id", "amount")), 1, "{\"id\":\"f\",\"amount\":1}");
    assertThat(rows()).extracting(r -> r.get(0)).containsExactly(100L, 110L, 120L);
    assertThat(
            TableRules.of(DeltaTable.open(store, TableOptions.defaults()).snapshot())
                .identity("seq")
                .highWaterMark())
        .isEqualTo(120L);
  }

  @Test
  void aBatchReplayedAfterACrashBeforeItsCommitAssignsTheSameValuesOnce() throws Exception {
    makeLikeSpark(Map.of());
    batch(start(declared("id", "amount")), 0, "{\"id\":\"a\",\"amount\":1}");
    // the crash: data files written with 110 and 120, never committed; the mark stays at 100
    batch(
        start(declared("id", "amount")),
        1,
        false,
        "{\"id\":\"b\",\"amount\":2}",
        "{\"id\":\"c\",\"amount\":3}");
    assertThat(
            TableRules.of(DeltaTable.open(store, TableOptions.defaults()).snapshot())
                .identity("seq")
                .highWaterMark())
        .isEqualTo(100L);
    // the restart replays batch 1, then batch 1 again is a skip (the table holds it)
    Run restarted = start(declared("id", "amount"));
    batch(restarted, 1, "{\"id\":\"b\",\"amount\":2}", "{\"id\":\"c\",\"amount\":3}");
    batch(restarted, 1, "{\"id\":\"b\",\"amount\":2}", "{\"id\":\"c\",\"amount\":3}");
    assertThat(rows())
        .containsExactly(
            List.of(100L, "a", 1L, 2L), List.of(110L, "b", 2L, 4L), List.of(120L, "c", 3L, 6L));
    assertThat(
            TableRules.of(DeltaTable.open(store, TableOptions.defaults()).snapshot())
                .identity("seq")
                .highWaterMark())
        .isEqualTo(120L);
  }

  @Test
  void aWrittenGeneratedColumnMustEqualItsExpression() throws Exception {
    makeLikeSpark(Map.of());
    Run run = start(declared("id", "amount", "doubled"));
    batch(
        run,
        0,
        "{\"id\":\"a\",\"amount\":3,\"doubled\":6}",
        "{\"id\":\"b\",\"amount\":3,\"doubled\":7}");
    assertThat(rows()).containsExactly(List.of(100L, "a", 3L, 6L));
    assertThat(quarantineErrors())
        .containsExactly(
            "the table at "
                + store.location()
                + " generates column doubled as (amount * 2) = 6 but the row has 7");
  }

  @Test
  void whatTributaryCannotHonourIsRefusedAtStartNamingTheRule() throws Exception {
    makeLikeSpark(
        Map.of(
            "delta.constraints.odd", "no_such_function(amount)",
            "delta.constraints.sequenced", "seq > 0"));
    assertThatThrownBy(() -> start(declared("seq", "id", "amount")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Pipeline orders cannot append to the Delta table at")
        .hasMessageContaining("CHECK constraint odd (no_such_function(amount)) cannot be compiled")
        .hasMessageContaining("identity column seq, which is GENERATED ALWAYS")
        .hasMessageContaining("Nothing was written");
    assertThatThrownBy(() -> start(declared("id", "amount")))
        .hasMessageContaining("CHECK constraint sequenced (seq > 0) reads an identity column");
  }

  @Test
  void aSinkThatDoesNotEnforceTheRulesRefusesTheTableByFeature() throws Exception {
    makeLikeSpark(Map.of("delta.constraints.positive", "amount > 0"));
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    assertThatThrownBy(
            () ->
                new DeltaTableSink(
                    "orders",
                    store,
                    table,
                    table.snapshot().schema(),
                    List.of(),
                    DataWriteOptions.defaults()))
        .hasMessageContaining("Pipeline orders")
        .hasMessageContaining("checkConstraints")
        .hasMessageContaining("identityColumns");
  }
}
