package dev.tributary.table.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

/**
 * The column types issue 23 added: byte, short, float, timestamp_ntz, arrays and maps (nested in
 * each other and in structs), written by our writer and read back, and read from the Parquet shapes
 * other writers use: Spark's legacy two-level lists and MAP_KEY_VALUE maps, decimals as BINARY and
 * FIXED_LEN_BYTE_ARRAY, zone-less timestamps in milliseconds, and the widenings Delta's type
 * widening allows.
 */
class NestedAndSmallTypesTest {
  private static final StructType POINT =
      StructType.of(
          StructField.nullable("x", PrimitiveType.LONG),
          StructField.nullable("y", PrimitiveType.STRING));
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("b", PrimitiveType.BYTE),
          StructField.nullable("s", PrimitiveType.SHORT),
          StructField.nullable("f", PrimitiveType.FLOAT),
          StructField.nullable("t", PrimitiveType.TIMESTAMP_NTZ),
          StructField.nullable("ints", new ArrayType(PrimitiveType.INTEGER, true)),
          StructField.nullable("points", new ArrayType(POINT, true)),
          StructField.nullable(
              "m",
              new MapType(PrimitiveType.STRING, new ArrayType(PrimitiveType.LONG, false), true)),
          StructField.nullable(
              "nested",
              StructType.of(
                  StructField.nullable(
                      "tags", new MapType(PrimitiveType.INTEGER, PrimitiveType.STRING, false)))));

  private final InMemoryObjectStore store = new InMemoryObjectStore();

  @Test
  void ourWriterAndReaderRoundTripEveryNewTypeWithNullsAndEmptyCollections() throws Exception {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("a", List.of(1L, 2L));
    m.put("none", null);
    m.put("empty", List.of());
    List<Object[]> rows =
        List.of(
            new Object[] {
              (byte) -128,
              (short) 32767,
              1.5f,
              LocalDateTime.parse("2026-03-29T02:30:00.123456"),
              Arrays.asList(1, null, 3),
              Arrays.asList(new Object[] {7L, "p"}, null, new Object[] {null, null}),
              m,
              new Object[] {Map.of(1, "one")}
            },
            new Object[] {null, null, null, null, null, null, null, null},
            new Object[] {
              (byte) 127,
              (short) -32768,
              Float.NaN,
              LocalDateTime.parse("0001-01-01T00:00:00"),
              List.of(),
              List.of(),
              Map.of(),
              new Object[] {null}
            });

    DataFile file;
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, SCHEMA, List.of(), DataWriteOptions.defaults())) {
      for (Object[] r : rows) {
        writer.write(r);
      }
      file = writer.finish().get(0);
    }

    assertThat(deep(DataFiles.readAll(store, file, SCHEMA))).isEqualTo(deep(rows));
    assertThat(file.stats().minValues())
        .containsEntry("b", (byte) -128)
        .containsEntry("s", (short) -32768)
        // a NaN leaves float without bounds; zone-less times, arrays and maps have none
        .doesNotContainKeys("f", "t", "ints", "m");
    assertThat(file.stats().nullCount()).containsEntry("ints", 1L).containsEntry("m", 1L);
  }

  @Test
  void aByteColumnGivenAnIntegerIsRefusedNamingTheColumn() throws Exception {
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, SCHEMA, List.of(), DataWriteOptions.defaults())) {
      assertThatThrownBy(
              () -> writer.write(new Object[] {1, null, null, null, null, null, null, null}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'b'")
          .hasMessageContaining("byte");
    }
  }

  @Test
  void legacyTwoLevelListsMapKeyValueAndForeignDecimalsAreRead() throws IOException {
    MessageType file =
        MessageTypeParser.parseMessageType(
            "message spark_schema {"
                + " optional group bag_list (LIST) { repeated group bag { optional int32 array; } }"
                + " optional group plain_list (LIST) { repeated int64 array; }"
                + " optional group struct_list (LIST) { repeated group array {"
                + "   optional int64 x; optional binary y (STRING); } }"
                + " optional group legacy_map (MAP) { repeated group map (MAP_KEY_VALUE) {"
                + "   required binary key (STRING); optional int32 value; } }"
                + " optional binary dec_binary (DECIMAL(5,2));"
                + " optional fixed_len_byte_array(3) dec_fixed (DECIMAL(5,2));"
                + " optional int32 tiny (INTEGER(8,true));"
                + " optional int64 ntz_millis (TIMESTAMP(MILLIS,false));"
                + " optional int32 day (DATE);"
                + " optional float single;"
                + " optional int32 small (INTEGER(16,true)); }");
    StructType schema =
        StructType.of(
            StructField.nullable("bag_list", new ArrayType(PrimitiveType.INTEGER, true)),
            StructField.nullable("plain_list", new ArrayType(PrimitiveType.LONG, false)),
            StructField.nullable("struct_list", new ArrayType(POINT, true)),
            StructField.nullable(
                "legacy_map", new MapType(PrimitiveType.STRING, PrimitiveType.INTEGER, true)),
            StructField.nullable("dec_binary", new DecimalType(5, 2)),
            StructField.nullable("dec_fixed", new DecimalType(5, 2)),
            StructField.nullable("tiny", PrimitiveType.BYTE),
            StructField.nullable("ntz_millis", PrimitiveType.TIMESTAMP_NTZ),
            // the widenings typeWidening allows: date to timestamp_ntz, float to double, short to
            // long
            StructField.nullable("day", PrimitiveType.TIMESTAMP_NTZ),
            StructField.nullable("single", PrimitiveType.DOUBLE),
            StructField.nullable("small", PrimitiveType.LONG));
    write(
        file,
        row -> {
          Group bags = row.addGroup("bag_list");
          bags.addGroup("bag").append("array", 1);
          bags.addGroup("bag"); // a null element
          row.addGroup("plain_list").append("array", 5L).append("array", 6L);
          row.addGroup("struct_list").addGroup("array").append("x", 9L).append("y", "nine");
          row.addGroup("legacy_map").addGroup("map").append("key", "k").append("value", 4);
          row.append("dec_binary", Binary.fromConstantByteArray(new byte[] {(byte) 0xFF, 0x38}));
          row.append("dec_fixed", Binary.fromConstantByteArray(new byte[] {0, 0x30, 0x39}));
          row.append("tiny", -5);
          row.append("ntz_millis", 1_000L);
          row.append("day", 1);
          row.append("single", 0.5f);
          row.append("small", -300);
        });

    List<Object[]> read =
        DataFiles.readAll(
            store,
            new DataFile(
                "f.parquet", Map.of(), 0, 0, new FileStats(-1, Map.of(), Map.of(), Map.of())),
            schema);

    assertThat(deep(read))
        .containsExactly(
            deep(
                new Object[] {
                  Arrays.asList(1, null),
                  List.of(5L, 6L),
                  List.of((Object) new Object[] {9L, "nine"}),
                  Map.of("k", 4),
                  new BigDecimal(BigInteger.valueOf(-200), 2),
                  new BigDecimal("123.45"),
                  (byte) -5,
                  LocalDateTime.parse("1970-01-01T00:00:01"),
                  LocalDate.of(1970, 1, 2).atStartOfDay(),
                  0.5d,
                  -300L
                }),
            Arrays.asList(null, null, null, null, null, null, null, null, null, null, null));
  }

  @Test
  void aListStoredAsAPlainColumnIsRefusedNamingTheColumn() throws IOException {
    MessageType file = MessageTypeParser.parseMessageType("message m { optional int32 ints; }");
    write(file, row -> row.append("ints", 1));
    StructType schema =
        StructType.of(StructField.nullable("ints", new ArrayType(PrimitiveType.INTEGER, true)));

    assertThatThrownBy(
            () ->
                DataFiles.readAll(
                    store,
                    new DataFile(
                        "f.parquet",
                        Map.of(),
                        0,
                        0,
                        new FileStats(-1, Map.of(), Map.of(), Map.of())),
                    schema))
        .hasMessageContaining("ints")
        .hasMessageContaining("array");
  }

  @Test
  void rowChecksLookInsideArraysAndMaps() {
    assertThat(
            RowChecks.valueProblem(
                "tags", new ArrayType(PrimitiveType.STRING, false), Arrays.asList("a", null)))
        .contains("tags.element");
    Map<String, String> broken = new LinkedHashMap<>();
    broken.put("k", "bad \uD800 text");
    assertThat(
            RowChecks.valueProblem(
                "m", new MapType(PrimitiveType.STRING, PrimitiveType.STRING, true), broken))
        .contains("m.value");
    assertThat(
            RowChecks.valueProblem(
                "m",
                new MapType(PrimitiveType.STRING, PrimitiveType.STRING, true),
                Map.of("k", "v")))
        .isNull();
  }

  /** One row filled by {@code fill} and one all-null row. */
  private void write(MessageType file, Consumer<Group> fill) throws IOException {
    SimpleGroupFactory rows = new SimpleGroupFactory(file);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new StoreOutputFile(store, "f.parquet"))
            .withConf(new PlainParquetConfiguration())
            .withType(file)
            .build()) {
      Group row = rows.newGroup();
      fill.accept(row);
      writer.write(row);
      writer.write(rows.newGroup());
    }
  }

  /** Rows as values that compare by content: arrays of structs and bytes become lists. */
  private static List<Object> deep(List<Object[]> rows) {
    List<Object> out = new ArrayList<>();
    rows.forEach(r -> out.add(deep(r)));
    return out;
  }

  private static Object deep(Object value) {
    if (value instanceof Object[] struct) {
      List<Object> out = new ArrayList<>();
      for (Object v : struct) {
        out.add(deep(v));
      }
      return out;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(v -> out.add(deep(v)));
      return out;
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(deep(k), deep(v)));
      return out;
    }
    if (value instanceof Float f && f.isNaN()) {
      return "NaN";
    }
    return value;
  }
}
