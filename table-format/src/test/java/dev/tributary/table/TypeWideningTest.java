package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.TypeChange;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Declared type widening: the commit it writes, and reading and compacting the older files. */
class TypeWideningTest {
  static final StructType NARROW =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("amount", PrimitiveType.INTEGER),
          StructField.nullable("score", PrimitiveType.INTEGER),
          StructField.nullable("price", new DecimalType(10, 2)),
          StructField.nullable("region", PrimitiveType.STRING));

  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  static Map<String, DataType> wide() {
    return Map.of(
        "amount",
        PrimitiveType.LONG,
        "score",
        PrimitiveType.DOUBLE,
        "price",
        new DecimalType(14, 4));
  }

  private void append(long batch, List<Object[]> rows) throws Exception {
    try (AppendTransaction tx = table.newAppend(new TransactionId("p", batch))) {
      for (Object[] row : rows) {
        tx.write(row);
      }
      tx.commit(Map.of());
    }
  }

  private static List<Object[]> narrowRows(long from, long to) {
    List<Object[]> rows = new ArrayList<>();
    for (long id = from; id < to; id++) {
      rows.add(
          new Object[] {
            id, (int) id * 10, (int) id, new BigDecimal(id + ".25"), id % 2 == 0 ? "EU" : "US"
          });
    }
    return rows;
  }

  private JsonNode commitJson(long version, String action) throws Exception {
    String text = new String(store.read(LogFiles.commit(version)), StandardCharsets.UTF_8);
    ObjectMapper mapper = new ObjectMapper();
    for (String line : text.split("\n")) {
      JsonNode node = mapper.readTree(line);
      if (node.has(action)) {
        return node.get(action);
      }
    }
    throw new AssertionError("no " + action + " in commit " + version + ": " + text);
  }

  @Test
  void wideningWritesTheTypeWideningFeatureThePropertyAndTheTypeChangesInOneCommit()
      throws Exception {
    table.create(NARROW, List.of("region"), Map.of());
    append(0, narrowRows(0, 4));

    Snapshot widened = table.widenColumns(wide());

    assertThat(widened.version()).isEqualTo(2);
    assertThat(widened.schema().field("amount").orElseThrow().type()).isEqualTo(PrimitiveType.LONG);
    assertThat(widened.schema().field("amount").orElseThrow().typeChanges())
        .containsExactly(new TypeChange(PrimitiveType.INTEGER, PrimitiveType.LONG));
    assertThat(widened.state().protocol())
        .isEqualTo(
            new Protocol(
                3, 7, Set.of("typeWidening"), Set.of("appendOnly", "invariants", "typeWidening")));
    JsonNode protocol = commitJson(2, "protocol");
    assertThat(protocol.toString())
        .isEqualTo(
            "{\"minReaderVersion\":3,\"minWriterVersion\":7,"
                + "\"readerFeatures\":[\"typeWidening\"],\"writerFeatures\":[\"appendOnly\",\"invariants\",\"typeWidening\"]}");
    JsonNode metadata = commitJson(2, "metaData");
    assertThat(metadata.get("configuration").toString())
        .isEqualTo("{\"delta.enableTypeWidening\":\"true\"}");
    JsonNode schema = new ObjectMapper().readTree(metadata.get("schemaString").asText());
    assertThat(schema.get("fields").get(1).toString())
        .isEqualTo(
            "{\"name\":\"amount\",\"type\":\"long\","
                + "\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\"}]}}");
    assertThat(schema.get("fields").get(2).toString())
        .isEqualTo(
            "{\"name\":\"score\",\"type\":\"double\","
                + "\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"double\"}]}}");
    assertThat(schema.get("fields").get(3).toString())
        .isEqualTo(
            "{\"name\":\"price\",\"type\":\"decimal(14,4)\","
                + "\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"decimal(10,2)\","
                + "\"toType\":\"decimal(14,4)\"}]}}");
    assertThat(schema.get("fields").get(0).get("metadata").toString()).isEqualTo("{}");
    assertThat(commitJson(2, "commitInfo").get("operation").asText()).isEqualTo("CHANGE COLUMN");
  }

  @Test
  void wideningIsIdempotentAndKeepsTheHistoryWhenColumnsAreAddedLater() throws Exception {
    table.create(NARROW, List.of("region"), Map.of());
    table.widenColumns(wide());
    Snapshot again = table.widenColumns(wide());
    assertThat(again.version()).isEqualTo(1);

    DeltaTable reopened = DeltaTable.open(store, TestTables.fastOptions(clock));
    assertThat(reopened.widenColumns(wide()).version()).isEqualTo(1);
    Snapshot added =
        reopened.addColumns(List.of(StructField.nullable("extra", PrimitiveType.STRING)));
    assertThat(added.schema().field("amount").orElseThrow().typeChanges())
        .containsExactly(new TypeChange(PrimitiveType.INTEGER, PrimitiveType.LONG));
    assertThat(added.state().metadata().configuration())
        .containsEntry("delta.enableTypeWidening", "true");
  }

  @Test
  void olderFilesAreReadAsTheWideTypesAndNewFilesHoldValuesBeyondTheNarrowRange() throws Exception {
    table.create(NARROW, List.of("region"), Map.of());
    append(0, narrowRows(0, 4));
    table.widenColumns(wide());
    long big = Integer.MAX_VALUE + 5L;
    append(
        1,
        List.<Object[]>of(new Object[] {10L, big, 2.5, new BigDecimal("1234567890.1234"), "EU"}));

    List<Object[]> rows = TestTables.rows(store, table.snapshot());

    assertThat(rows).hasSize(5);
    assertThat(rows.get(1)).containsExactly(1L, 10L, 1.0, new BigDecimal("1.2500"), "US");
    assertThat(rows.get(4)).containsExactly(10L, big, 2.5, new BigDecimal("1234567890.1234"), "EU");
  }

  @Test
  void compactionOfAWidenedTableWritesTheWideTypes() throws Exception {
    table.create(NARROW, List.of(), Map.of());
    for (int b = 0; b < 3; b++) {
      append(b, narrowRows(b * 3L, b * 3L + 3));
    }
    table.widenColumns(wide());
    append(
        3,
        List.<Object[]>of(
            new Object[] {100L, Long.MAX_VALUE, 0.5, new BigDecimal("-9999999999.9999"), null}));
    List<Object[]> before = TestTables.rows(store, table.snapshot());

    CompactionResult result = table.compact(new CompactionOptions(2, 1024 * 1024));

    assertThat(result.compacted()).isTrue();
    Snapshot after = table.snapshot();
    assertThat(after.fileCount()).isEqualTo(1);
    List<Object[]> rows = TestTables.rows(store, after);
    assertThat(rows)
        .usingRecursiveFieldByFieldElementComparator()
        .containsExactlyElementsOf(before);
    assertThat(rows.get(0)[1]).isInstanceOf(Long.class);
    // The compacted file stores the wide types: read with the narrow schema, it is refused.
    var file = after.files().get(0);
    assertThatThrownBy(() -> DataFiles.read(store, file, NARROW).forEachRemaining(r -> {}))
        .hasMessageContaining("amount");
  }

  @Test
  void narrowingAndOtherChangesAreRefused() throws Exception {
    StructType schema =
        StructType.of(
            StructField.nullable("n", PrimitiveType.LONG),
            StructField.nullable("d", PrimitiveType.DOUBLE),
            StructField.nullable("p", new DecimalType(10, 2)),
            StructField.nullable("s", PrimitiveType.STRING));
    table.create(schema, List.of(), Map.of());
    assertThatThrownBy(() -> table.widenColumns(Map.of("n", PrimitiveType.INTEGER)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("from long to integer");
    assertThatThrownBy(() -> table.widenColumns(Map.of("n", PrimitiveType.DOUBLE)))
        .hasMessageContaining("from long to double");
    assertThatThrownBy(() -> table.widenColumns(Map.of("p", new DecimalType(11, 4))))
        .hasMessageContaining("from decimal(10,2) to decimal(11,4)");
    assertThatThrownBy(() -> table.widenColumns(Map.of("s", PrimitiveType.LONG)))
        .hasMessageContaining("from string to long");
    assertThat(table.snapshot().version()).isZero();
  }

  @Test
  void theProtocolAllowsExactlyTheDeltaWidenings() {
    assertThat(TypeWidening.allowed(PrimitiveType.INTEGER, PrimitiveType.LONG)).isTrue();
    assertThat(TypeWidening.allowed(PrimitiveType.INTEGER, PrimitiveType.DOUBLE)).isTrue();
    assertThat(TypeWidening.allowed(PrimitiveType.INTEGER, new DecimalType(10, 0))).isTrue();
    assertThat(TypeWidening.allowed(PrimitiveType.INTEGER, new DecimalType(10, 1))).isFalse();
    assertThat(TypeWidening.allowed(PrimitiveType.LONG, new DecimalType(20, 0))).isTrue();
    assertThat(TypeWidening.allowed(PrimitiveType.LONG, PrimitiveType.DOUBLE)).isFalse();
    assertThat(TypeWidening.allowed(new DecimalType(10, 2), new DecimalType(12, 4))).isTrue();
    assertThat(TypeWidening.allowed(new DecimalType(10, 2), new DecimalType(12, 1))).isFalse();
    assertThat(TypeWidening.allowed(PrimitiveType.DATE, PrimitiveType.TIMESTAMP)).isFalse();
    assertThat(TypeWidening.allowed(PrimitiveType.LONG, PrimitiveType.INTEGER)).isFalse();
  }

  @Test
  void typeChangesWrittenBySparkAreReadIncludingThePreviewsTableVersion() {
    StructType parsed =
        SchemaJson.parse(
            "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\","
                + "\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":[{\"tableVersion\":2,"
                + "\"fromType\":\"integer\",\"toType\":\"long\"}],\"comment\":\"x\"}}]}");
    assertThat(parsed.fields().get(0).typeChanges())
        .containsExactly(
            new TypeChange(PrimitiveType.INTEGER, PrimitiveType.LONG, OptionalLong.of(2)));
    // kept when the schema is written again, so that Delta 3.x (the preview) still finds it
    assertThat(SchemaJson.toJson(parsed))
        .isEqualTo(
            "{\"type\":\"struct\",\"fields\":["
                + "{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"comment\":\"x\","
                + "\"delta.typeChanges\":[{\"tableVersion\":2,\"fromType\":\"integer\",\"toType\":\"long\"}]}}]}");
  }

  @Test
  void wholeNumbersWidenedToDecimalsReadAsDecimalsOfTheTableScale() throws Exception {
    table.create(
        StructType.of(
            new StructField("id", PrimitiveType.LONG, false),
            StructField.nullable("i", PrimitiveType.INTEGER),
            StructField.nullable("l", PrimitiveType.LONG)),
        List.of(),
        Map.of());
    append(
        0,
        List.<Object[]>of(new Object[] {1L, -12, 9_000_000_000L}, new Object[] {2L, null, null}));
    table.widenColumns(Map.of("i", new DecimalType(12, 2), "l", new DecimalType(22, 1)));

    List<Object[]> rows = TestTables.rows(store, table.snapshot());

    assertThat(rows.get(0))
        .containsExactly(1L, new BigDecimal("-12.00"), new BigDecimal("9000000000.0"));
    assertThat(rows.get(1)).containsExactly(2L, null, null);
  }
}
