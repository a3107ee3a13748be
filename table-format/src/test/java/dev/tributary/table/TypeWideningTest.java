package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.TypeChange;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  /** The narrow columns Spark's ALTER COLUMN widens in {@code everyWideningDelta40Makes...}. */
  static final StructType SPARK_NARROW =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("b2s", PrimitiveType.BYTE),
          StructField.nullable("b2l", PrimitiveType.BYTE),
          StructField.nullable("b2dec", PrimitiveType.BYTE),
          StructField.nullable("s2d", PrimitiveType.SHORT),
          StructField.nullable("i2dec", PrimitiveType.INTEGER),
          StructField.nullable("f2d", PrimitiveType.FLOAT),
          StructField.nullable("d2ntz", PrimitiveType.DATE),
          StructField.nullable("dec", new DecimalType(5, 2)),
          StructField.nullable("l2dec", PrimitiveType.LONG),
          StructField.nullable(
              "st", StructType.of(StructField.nullable("x", PrimitiveType.INTEGER))),
          StructField.nullable("arr", new ArrayType(PrimitiveType.SHORT, true)),
          StructField.nullable("m", new MapType(PrimitiveType.INTEGER, PrimitiveType.FLOAT, true)),
          StructField.nullable("pd", PrimitiveType.DATE),
          StructField.nullable("pi", PrimitiveType.INTEGER));

  /**
   * The schema after Spark's ALTER COLUMN ... TYPE of every column, with {@code delta.typeChanges}
   * as Delta 4.0 records them (a chain byte to short to integer; {@code fieldPath} inside arrays
   * and maps; a struct's field carries its own).
   */
  static final String SPARK_WIDE_SCHEMA =
      "{\"type\":\"struct\",\"fields\":["
          + "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
          + field(
              "b2s",
              "\"integer\"",
              change("byte", "short", null) + "," + change("short", "integer", null))
          + ","
          + field("b2l", "\"long\"", change("byte", "long", null))
          + ","
          + field("b2dec", "\"decimal(12,2)\"", change("byte", "decimal(12,2)", null))
          + ","
          + field("s2d", "\"double\"", change("short", "double", null))
          + ","
          + field("i2dec", "\"decimal(12,2)\"", change("integer", "decimal(12,2)", null))
          + ","
          + field("f2d", "\"double\"", change("float", "double", null))
          + ","
          + field("d2ntz", "\"timestamp_ntz\"", change("date", "timestamp_ntz", null))
          + ","
          + field("dec", "\"decimal(6,3)\"", change("decimal(5,2)", "decimal(6,3)", null))
          + ","
          + field("l2dec", "\"decimal(20,0)\"", change("long", "decimal(20,0)", null))
          + ","
          + field(
              "st",
              "{\"type\":\"struct\",\"fields\":["
                  + field("x", "\"long\"", change("integer", "long", null))
                  + "]}",
              null)
          + ","
          + field(
              "arr",
              "{\"type\":\"array\",\"elementType\":\"integer\",\"containsNull\":true}",
              change("short", "integer", "element"))
          + ","
          + field(
              "m",
              "{\"type\":\"map\",\"keyType\":\"long\",\"valueType\":\"double\","
                  + "\"valueContainsNull\":true}",
              change("integer", "long", "key") + "," + change("float", "double", "value"))
          + ","
          + field("pd", "\"timestamp_ntz\"", change("date", "timestamp_ntz", null))
          + ","
          + field("pi", "\"long\"", change("integer", "long", null))
          + "]}";

  private static String field(String name, String type, String changes) {
    return "{\"name\":\""
        + name
        + "\",\"type\":"
        + type
        + ",\"nullable\":true,\"metadata\":"
        + (changes == null ? "{}" : "{\"delta.typeChanges\":[" + changes + "]}")
        + "}";
  }

  private static String change(String from, String to, String fieldPath) {
    return "{\"toType\":\""
        + to
        + "\",\"fromType\":\""
        + from
        + "\""
        + (fieldPath == null ? "" : ",\"fieldPath\":\"" + fieldPath + "\"")
        + "}";
  }

  /** Commits what Spark's ALTER COLUMNs leave: the wide schema and the two features. */
  private void sparkWidens(String schemaString) throws Exception {
    Snapshot s = table.snapshot();
    Metadata m = s.state().metadata();
    List<Action> actions =
        List.of(
            new CommitInfo(Map.of("timestamp", 1L, "operation", "CHANGE COLUMN")),
            new Protocol(
                3,
                7,
                Set.of("typeWidening", "timestampNtz"),
                Set.of("typeWidening", "timestampNtz", "appendOnly", "invariants")),
            new Metadata(
                m.id(),
                null,
                null,
                m.format(),
                schemaString,
                m.partitionColumns(),
                Map.of("delta.enableTypeWidening", "true"),
                m.createdTime()));
    assertThat(new DeltaLog(store).tryCommit(s.version() + 1, actions)).isTrue();
  }

  @Test
  void everyWideningDelta40MakesIsReadAtAnyDepthAndInPartitionValues() throws Exception {
    table.create(SPARK_NARROW, List.of("pd", "pi"), Map.of());
    LocalDate leap = LocalDate.parse("2024-02-29");
    append(
        0,
        List.<Object[]>of(
            new Object[] {
              1L,
              (byte) -5,
              (byte) 127,
              (byte) -128,
              (short) -300,
              70000,
              0.1f,
              leap,
              new BigDecimal("123.45"),
              9_000_000_000L,
              new Object[] {7},
              List.of((short) 1, (short) -2),
              Map.of(3, 0.5f),
              leap,
              5
            },
            new Object[] {
              2L, null, null, null, null, null, null, null, null, null, null, null, null, null, null
            }));
    sparkWidens(SPARK_WIDE_SCHEMA);
    LocalDateTime noon = LocalDateTime.parse("2024-03-01T12:00:00.123456");
    append(
        1,
        List.<Object[]>of(
            new Object[] {
              3L,
              Integer.MAX_VALUE,
              Long.MIN_VALUE,
              new BigDecimal("12345678.99"),
              1.0e300,
              new BigDecimal("1234567890.12"),
              0.1,
              noon,
              new BigDecimal("999.999"),
              new BigDecimal("99999999999999999999"),
              new Object[] {Long.MAX_VALUE},
              List.of(100_000),
              Map.of(Long.MIN_VALUE, 1.0e-300),
              noon,
              Long.MAX_VALUE
            }));

    Snapshot snapshot = table.snapshot();
    assertThat(snapshot.schema().field("arr").orElseThrow().typeChanges())
        .containsExactly(
            new TypeChange(
                PrimitiveType.SHORT,
                PrimitiveType.INTEGER,
                OptionalLong.empty(),
                Optional.of("element")));
    List<Object[]> rows = TestTables.rows(store, snapshot);

    // the files written narrow: every value converted exactly, into the Java class of the wide type
    assertThat(rows.get(0))
        .containsExactly(
            1L,
            -5,
            127L,
            new BigDecimal("-128.00"),
            -300.0,
            new BigDecimal("70000.00"),
            (double) 0.1f,
            leap.atStartOfDay(),
            new BigDecimal("123.450"),
            new BigDecimal("9000000000"),
            new Object[] {7L},
            List.of(1, -2),
            Map.of(3L, 0.5),
            leap.atStartOfDay(),
            5L);
    assertThat(rows.get(1)).containsOnly(2L, null);
    assertThat(rows.get(2)[1]).isEqualTo(Integer.MAX_VALUE);
    assertThat(rows.get(2)[14]).isEqualTo(Long.MAX_VALUE);
    // the schema written again (an added column) keeps every change where Spark recorded it
    assertThat(SchemaJson.parse(SchemaJson.toJson(snapshot.schema()))).isEqualTo(snapshot.schema());
    assertThat(SchemaJson.toJson(snapshot.schema()))
        .contains(
            "\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\","
                + "\"fieldPath\":\"key\"},{\"fromType\":\"float\",\"toType\":\"double\","
                + "\"fieldPath\":\"value\"}]");
  }

  @Test
  void aTypeChangeNoDeltaReaderAppliesIsRefusedNamingTheColumn() throws Exception {
    table.create(
        StructType.of(
            new StructField("id", PrimitiveType.LONG, false),
            StructField.nullable("m", new MapType(PrimitiveType.STRING, PrimitiveType.LONG, true))),
        List.of(),
        Map.of());
    sparkWidens(
        "{\"type\":\"struct\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
            + field(
                "m",
                "{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"double\","
                    + "\"valueContainsNull\":true}",
                change("long", "double", "value"))
            + "]}");

    assertThatThrownBy(table::snapshot)
        .isInstanceOf(TableException.class)
        .hasMessageContaining(
            "(version 1): type changes Tributary cannot read (delta.typeChanges):"
                + " m.value from long to double.");
  }

  @Test
  void readableIsEveryChangeDelta40ReadsAtAnyDepth() {
    DataType[] whole = {
      PrimitiveType.BYTE, PrimitiveType.SHORT, PrimitiveType.INTEGER, PrimitiveType.LONG
    };
    for (int i = 0; i < whole.length; i++) {
      for (int j = 0; j < whole.length; j++) {
        assertThat(TypeWidening.readable(whole[i], whole[j])).as("%s %s", i, j).isEqualTo(i <= j);
      }
    }
    assertThat(TypeWidening.readable(PrimitiveType.BYTE, PrimitiveType.DOUBLE)).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.SHORT, PrimitiveType.DOUBLE)).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.INTEGER, PrimitiveType.DOUBLE)).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.LONG, PrimitiveType.DOUBLE)).isFalse();
    assertThat(TypeWidening.readable(PrimitiveType.FLOAT, PrimitiveType.DOUBLE)).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.DOUBLE, PrimitiveType.FLOAT)).isFalse();
    assertThat(TypeWidening.readable(PrimitiveType.DATE, PrimitiveType.TIMESTAMP_NTZ)).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.DATE, PrimitiveType.TIMESTAMP)).isFalse();
    // Spark 4.0 + Delta 4.0 refuse ALTER COLUMN from TINYINT to DECIMAL(5,2): all INT32 types need
    // a decimal that holds any INT32
    assertThat(TypeWidening.readable(PrimitiveType.BYTE, new DecimalType(10, 0))).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.BYTE, new DecimalType(5, 2))).isFalse();
    assertThat(TypeWidening.readable(PrimitiveType.SHORT, new DecimalType(12, 2))).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.SHORT, new DecimalType(9, 0))).isFalse();
    assertThat(TypeWidening.readable(PrimitiveType.LONG, new DecimalType(20, 0))).isTrue();
    assertThat(TypeWidening.readable(PrimitiveType.LONG, new DecimalType(19, 0))).isFalse();
    assertThat(TypeWidening.readable(new DecimalType(5, 2), new DecimalType(6, 3))).isTrue();
    assertThat(TypeWidening.readable(new DecimalType(5, 2), new DecimalType(6, 4))).isFalse();
    assertThat(TypeWidening.readable(PrimitiveType.FLOAT, new DecimalType(38, 10))).isFalse();
    assertThat(TypeWidening.readable(PrimitiveType.INTEGER, PrimitiveType.STRING)).isFalse();
    assertThat(
            TypeWidening.readable(
                new MapType(PrimitiveType.INTEGER, new ArrayType(PrimitiveType.FLOAT, true), true),
                new MapType(PrimitiveType.LONG, new ArrayType(PrimitiveType.DOUBLE, true), true)))
        .isTrue();
    assertThat(
            TypeWidening.readable(
                StructType.of(StructField.nullable("x", PrimitiveType.INTEGER)),
                StructType.of(StructField.nullable("y", PrimitiveType.LONG))))
        .as("a renamed field is not a widening")
        .isFalse();
    // every change Tributary makes itself is one every Delta 4.0 reader reads
    for (DataType from : whole) {
      for (DataType to :
          List.of(
              PrimitiveType.LONG,
              PrimitiveType.DOUBLE,
              new DecimalType(10, 0),
              new DecimalType(22, 2),
              new DecimalType(9, 0))) {
        if (TypeWidening.allowed(from, to)) {
          assertThat(TypeWidening.readable(from, to)).as("%s to %s", from, to).isTrue();
        }
      }
    }
  }
}
