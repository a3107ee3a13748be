package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.service.expr.Transforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
 * Schema evolution through the real sink and a real local Delta table: rescue, add-columns in the
 * commit of the first rows that carry the column, restarts and replays, declared widenings applied
 * and other type changes refused at start.
 */
class SchemaEvolutionSinkTest {
  private static final SchemaEvolutionSpec ADD =
      new SchemaEvolutionSpec(SchemaEvolutionSpec.Mode.ADD_COLUMNS, false);
  private static final SchemaEvolutionSpec RESCUE =
      new SchemaEvolutionSpec(SchemaEvolutionSpec.Mode.NONE, true);

  @TempDir Path dir;
  private ObjectStore store;
  private final InMemoryBatchWriter quarantine = new InMemoryBatchWriter();
  private long offset;

  @BeforeEach
  void open() throws Exception {
    store = ObjectStores.open(dir.resolve("orders").toString(), null);
  }

  @AfterEach
  void close() throws Exception {
    store.close();
  }

  private static StatelessProcessor declared(String amountType) {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "string");
    columns.put("amount", amountType);
    JsonRecordParser parser =
        JsonRecordParser.forColumns(columns, JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
    var transforms =
        Transforms.compile(StatelessProcessor.transformInput(parser.schema()), List.of());
    return new StatelessProcessor("orders", parser, transforms, List.of());
  }

  /**
   * What PipelineFactory does at start: open the table's layout, the sink, the evolving processor.
   */
  private record Run(DeltaTableSink sink, StatelessProcessor processor) {}

  private Run start(SchemaEvolutionSpec spec, String amountType) throws Exception {
    StatelessProcessor plain = declared(amountType);
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    EvolvingLayout layout =
        EvolvingLayout.open("orders", table, plain.outputSchema(), List.of(), spec);
    DeltaTableSink sink =
        new DeltaTableSink("orders", store, table, layout, List.of(), DataWriteOptions.defaults());
    return new Run(sink, plain.evolving(layout, List.of()));
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

  /**
   * One batch through the pipelined writer, as the engine runs it; commit false: a crash before the
   * commit.
   */
  private void batch(Run run, long batchId, boolean commit, String... records) throws Exception {
    BatchTag tag = new BatchTag(new TransactionId("orders@c", batchId), List.of());
    try (TableSink.BatchWriter writer =
        PipelinedBatchWriter.wrap(run.sink().begin(tag), "test-writer")) {
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

  private StructType schema() throws Exception {
    return DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
  }

  /** The table's rows as maps of the columns named, ordered by id. */
  private List<List<Object>> rows(String... columns) throws Exception {
    StructType schema = schema();
    List<List<Object>> out = new ArrayList<>();
    for (Object[] r : TableContents.rows(store)) {
      List<Object> picked = new ArrayList<>();
      for (String c : columns) {
        picked.add(r.length > schema.indexOf(c) ? r[schema.indexOf(c)] : null);
      }
      out.add(picked);
    }
    out.sort(Comparator.comparing(l -> (String) l.get(0)));
    return out;
  }

  private long metadataCommits() throws Exception {
    DeltaLog log = new DeltaLog(store);
    long n = 0;
    for (long v = 0;
        v <= DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
        v++) {
      n += log.readCommit(v).stream().filter(a -> a instanceof Metadata).count();
    }
    return n;
  }

  @Test
  void rescueKeepsWhatTheDeclarationLacksAndMisfitsInRescuedData() throws Exception {
    Run run = start(RESCUE, "long");
    batch(
        run,
        0,
        true,
        "{\"id\":\"a\",\"amount\":1}",
        "{\"id\":\"b\",\"amount\":\"2$\",\"tier\":\"gold\"}",
        "{\"id\":\"c\"}");

    assertThat(schema().fieldNames())
        .containsExactly(
            "id",
            "amount",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp",
            "_rescued_data");
    assertThat(rows("id", "amount", "_rescued_data"))
        .containsExactly(
            listOf("a", 1L, null),
            listOf("b", null, "{\"amount\":\"2$\",\"tier\":\"gold\"}"),
            listOf("c", null, null))
        .isNotEmpty();
    assertThat(quarantine.rows).isEmpty();
  }

  @Test
  void rescueAddsItsColumnToATableWrittenBeforeWithoutIt() throws Exception {
    Run plain = start(SchemaEvolutionSpec.DEFAULT, "long");
    batch(plain, 0, true, "{\"id\":\"a\",\"amount\":1,\"tier\":\"gold\"}");
    assertThat(schema().fieldNames()).doesNotContain("_rescued_data");

    Run rescuing = start(RESCUE, "long");
    batch(rescuing, 1, true, "{\"id\":\"b\",\"amount\":2,\"tier\":\"silver\"}");

    assertThat(schema().fieldNames()).endsWith("_rescued_data");
    assertThat(rows("id", "_rescued_data"))
        .containsExactly(listOf("a", null), listOf("b", "{\"tier\":\"silver\"}"));
  }

  @Test
  void addColumnsAddsANewFieldInTheCommitOfItsFirstRowsAndKnowsItAfterARestart() throws Exception {
    Run run = start(ADD, "long");
    batch(run, 0, true, "{\"id\":\"a\",\"amount\":1}");
    long metadataBefore = metadataCommits();
    long versionBefore = DeltaTable.open(store, TableOptions.defaults()).snapshot().version();

    batch(
        run,
        1,
        true,
        "{\"id\":\"b\",\"amount\":2}",
        "{\"id\":\"c\",\"amount\":3,\"tier\":\"gold\",\"score\":7}",
        "{\"id\":\"d\",\"tier\":\"silver\"}");

    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    assertThat(table.snapshot().version()).isEqualTo(versionBefore + 1);
    assertThat(metadataCommits()).isEqualTo(metadataBefore + 1);
    assertThat(new DeltaLog(store).readCommit(versionBefore + 1))
        .anyMatch(a -> a instanceof Metadata);
    assertThat(schema().fields())
        .endsWith(
            StructField.nullable("tier", PrimitiveType.STRING),
            StructField.nullable("score", PrimitiveType.LONG));
    assertThat(rows("id", "tier", "score"))
        .containsExactly(
            listOf("a", null, null),
            listOf("b", null, null),
            listOf("c", "gold", 7L),
            listOf("d", "silver", null));

    // a restart knows the columns from the table; a value that does not fit is quarantined (no
    // rescue)
    Run again = start(ADD, "long");
    batch(
        again,
        2,
        true,
        "{\"id\":\"e\",\"tier\":\"bronze\",\"score\":1.5}",
        "{\"id\":\"f\",\"score\":2}");
    assertThat(metadataCommits()).isEqualTo(metadataBefore + 1);
    assertThat(rows("id", "tier", "score"))
        .extracting(l -> l.get(0))
        .containsExactly("a", "b", "c", "d", "f");
    assertThat(quarantine.rows)
        .singleElement()
        .satisfies(
            q ->
                assertThat((String) q[6])
                    .isEqualTo(
                        "field 'score': expected long (column score added by schema-evolution), got double 1.5; set"
                            + " schema-evolution.rescue: true to keep such values in _rescued_data"));
  }

  @Test
  void aBatchReplayedAfterACrashBeforeItsCommitAddsTheColumnOnce() throws Exception {
    Run run = start(ADD, "long");
    batch(run, 0, true, "{\"id\":\"a\"}");
    long metadataBefore = metadataCommits();
    offset = 1;
    batch(
        run,
        1,
        false /* crash after the data files, before the commit */,
        "{\"id\":\"b\",\"tier\":\"gold\"}");
    assertThat(schema().fieldNames()).doesNotContain("tier");

    Run restarted = start(ADD, "long");
    offset = 1;
    batch(restarted, 1, true, "{\"id\":\"b\",\"tier\":\"gold\"}");
    Run replayedAgain = start(ADD, "long");
    offset = 1;
    batch(replayedAgain, 1, true, "{\"id\":\"b\",\"tier\":\"gold\"}"); // already committed: skipped

    assertThat(metadataCommits()).isEqualTo(metadataBefore + 1);
    assertThat(rows("id", "tier")).containsExactly(listOf("a", null), listOf("b", "gold"));
  }

  @Test
  void aColumnMetWhileReplayingACommittedBatchIsAddedByTheNextCommit() throws Exception {
    // batch 0 committed under mode none, the run stopped before its commits-log entry; the restart
    // has
    // add-columns, so its replay of batch 0 (skipped by the table) meets the new field first
    Run none = start(SchemaEvolutionSpec.DEFAULT, "long");
    batch(none, 0, true, "{\"id\":\"a\",\"tier\":\"gold\"}");
    Run add = start(ADD, "long");
    offset = 0;
    batch(add, 0, true, "{\"id\":\"a\",\"tier\":\"gold\"}");
    assertThat(schema().fieldNames()).doesNotContain("tier");

    batch(add, 1, true, "{\"id\":\"b\"}", "{\"id\":\"c\",\"tier\":\"silver\"}");

    assertThat(schema().fieldNames()).endsWith("tier");
    assertThat(rows("id", "tier"))
        .containsExactly(listOf("a", null), listOf("b", null), listOf("c", "silver"));
  }

  @Test
  void modeNoneNeverChangesTheTable() throws Exception {
    Run run = start(SchemaEvolutionSpec.DEFAULT, "long");
    batch(run, 0, true, "{\"id\":\"a\",\"tier\":\"gold\"}");
    assertThat(schema().fieldNames()).doesNotContain("tier", "_rescued_data");
    assertThat(metadataCommits()).isEqualTo(1);
  }

  @Test
  void aDeclaredWideningWidensTheTableOnceAtStartAndOldRowsReadAsTheWideType() throws Exception {
    Run run = start(ADD, "int");
    batch(run, 0, true, "{\"id\":\"a\",\"amount\":1}", "{\"id\":\"b\",\"amount\":3000000000}");
    assertThat(quarantine.rows)
        .hasSize(1); // beyond int while int is declared: quarantined, as before

    Run widened = start(ADD, "long");
    long version = DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
    batch(widened, 1, true, "{\"id\":\"c\",\"amount\":3000000000}");

    var snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    assertThat(snapshot.schema().field("amount").orElseThrow().type())
        .isEqualTo(PrimitiveType.LONG);
    assertThat(snapshot.state().protocol().supports("typeWidening")).isTrue();
    assertThat(rows("id", "amount")).containsExactly(listOf("a", 1L), listOf("c", 3_000_000_000L));
    assertThat(quarantine.rows).hasSize(1);
    // A restart (or a crash right after the widening commit) finds the table widened: nothing is
    // committed.
    start(ADD, "long");
    new DeltaTableSink(
        "orders",
        store,
        DeltaTable.open(store, TableOptions.defaults()),
        declared("long").outputSchema(),
        List.of(),
        DataWriteOptions.defaults());
    assertThat(DeltaTable.open(store, TableOptions.defaults()).snapshot().version())
        .isEqualTo(version + 1);
  }

  @Test
  void thePlainSinkWidensADeclaredColumnToo() throws Exception {
    new DeltaTableSink(
        "orders",
        store,
        DeltaTable.open(store, TableOptions.defaults()),
        declared("int").outputSchema(),
        List.of(),
        DataWriteOptions.defaults());
    new DeltaTableSink(
        "orders",
        store,
        DeltaTable.open(store, TableOptions.defaults()),
        declared("double").outputSchema(),
        List.of(),
        DataWriteOptions.defaults());
    assertThat(schema().field("amount").orElseThrow().type()).isEqualTo(PrimitiveType.DOUBLE);
  }

  @Test
  void aDeclaredNarrowingOrOtherTypeChangeIsRefusedAtStartWithWhatToDo() throws Exception {
    Run run = start(ADD, "long");
    batch(run, 0, true, "{\"id\":\"a\",\"amount\":1}");
    String expected =
        "Pipeline orders: column amount of the table at "
            + store.location()
            + " is long but the"
            + " pipeline declares integer. Only widenings that Delta's type widening allows are applied (integer to"
            + " long, double or decimal, long to decimal, decimal to a decimal with at least as many integral and"
            + " fractional digits; docs/SCHEMA_EVOLUTION.md); declare amount as long again, or write to a new table"
            + " path (or rewrite the table with the new type in Spark, then restart).";
    assertThatThrownBy(() -> start(ADD, "int"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(expected);
    // the same without schema-evolution: the plain sink names the column too
    assertThatThrownBy(
            () ->
                new DeltaTableSink(
                    "orders",
                    store,
                    DeltaTable.open(store, TableOptions.defaults()),
                    declared("int").outputSchema(),
                    List.of(),
                    DataWriteOptions.defaults()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(expected);
    assertThatThrownBy(() -> start(ADD, "double"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is long but the pipeline declares double");
    assertThat(
            DeltaTable.open(store, TableOptions.defaults())
                .snapshot()
                .state()
                .protocol()
                .minWriterVersion())
        .isEqualTo(2);
  }

  @Test
  void aTableColumnThePipelineDoesNotWriteIsRefusedWithoutAddColumns() throws Exception {
    Run run = start(ADD, "long");
    batch(run, 0, true, "{\"id\":\"a\",\"tier\":\"gold\"}");
    assertThatThrownBy(() -> start(RESCUE, "long"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "has a column tier (string) that the pipeline does not write (added by"
                + " schema-evolution.mode: add-columns, or by another writer)");
  }

  private static List<Object> listOf(Object... values) {
    return Arrays.asList(values);
  }
}
