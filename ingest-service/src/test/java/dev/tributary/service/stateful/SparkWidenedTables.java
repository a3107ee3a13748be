package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * For {@link SparkInteropIT} (issue 23): every type change Delta 4.0's {@code ALTER TABLE ... ALTER
 * COLUMN ... TYPE} makes, judged by Spark. Spark creates two tables with {@code typeWidening},
 * writes rows, widens every column, then writes rows only the wide types hold:
 *
 * <ul>
 *   <li>{@code widened-all}: top-level columns, byte to short to integer (a chain), byte, short and
 *       integer to long, double and decimal, long to decimal, float to double, date to
 *       timestamp_ntz, decimals to more precision (INT32 to INT64, INT64 to FIXED_LEN_BYTE_ARRAY
 *       storage) and to more scale, and the two partition columns integer to long and date to
 *       timestamp_ntz (older files' partition values are dates);
 *   <li>{@code widened-nested}: a struct's fields, an array's element, a map's key and value, and
 *       fields of structs inside an array.
 * </ul>
 *
 * The Delta source must read every row as Spark reads it (older files' values converted: a date is
 * midnight, an integer a decimal of the column's scale, a float the double it is). Then a Kafka
 * pipeline appends values only the wide types hold to {@code widened-all}, Spark reads all rows
 * back, and the Delta source reads them as Spark does.
 */
final class SparkWidenedTables {
  /** Decimals and doubles as written, not rounded through a double. */
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * A column of {@code widened-all}: its narrow type, the types ALTER COLUMN gives it in turn, a
   * value Spark writes before and one after the widening (SQL literals).
   */
  private record Column(
      String name, String narrow, List<String> wider, String before, String after) {}

  private static final List<Column> COLUMNS =
      List.of(
          new Column("b2s", "TINYINT", List.of("SMALLINT", "INT"), "-128", "100000"),
          new Column("b2l", "TINYINT", List.of("BIGINT"), "127", "9000000000000000000"),
          new Column("b2d", "TINYINT", List.of("DOUBLE"), "-1", "0.5"),
          new Column("b2dec", "TINYINT", List.of("DECIMAL(12,2)"), "100", "1234567890.12"),
          new Column("s2i", "SMALLINT", List.of("INT"), "-32768", "100000"),
          new Column("s2l", "SMALLINT", List.of("BIGINT"), "32767", "-9000000000000000000"),
          new Column("s2d", "SMALLINT", List.of("DOUBLE"), "300", "1.5"),
          new Column("s2dec", "SMALLINT", List.of("DECIMAL(10,0)"), "-5", "1234567890"),
          new Column("i2l", "INT", List.of("BIGINT"), "2147483647", "9000000000000000000"),
          new Column("i2d", "INT", List.of("DOUBLE"), "-2147483648", "0.25"),
          new Column("i2dec", "INT", List.of("DECIMAL(12,2)"), "123", "1234567890.12"),
          new Column(
              "l2dec",
              "BIGINT",
              List.of("DECIMAL(22,1)"),
              "9223372036854775807",
              "123456789012345678901.5"),
          new Column("f2d", "FLOAT", List.of("DOUBLE"), "CAST(0.1 AS FLOAT)", "1.0E300D"),
          new Column(
              "d2ntz",
              "DATE",
              List.of("TIMESTAMP_NTZ"),
              "DATE'2024-02-29'",
              "TIMESTAMP_NTZ'2024-03-01 12:34:56.789'"),
          new Column("dec_p", "DECIMAL(5,2)", List.of("DECIMAL(12,2)"), "123.45", "1234567890.12"),
          new Column("dec_ps", "DECIMAL(5,2)", List.of("DECIMAL(8,4)"), "-1.5", "1234.5678"),
          new Column(
              "dec_big",
              "DECIMAL(10,2)",
              List.of("DECIMAL(30,2)"),
              "12345678.99",
              "1234567890123456789012345678.99"),
          new Column("pi", "INT", List.of("BIGINT"), "7", "9000000000000000000"),
          new Column(
              "pd",
              "DATE",
              List.of("TIMESTAMP_NTZ"),
              "DATE'2024-02-29'",
              "TIMESTAMP_NTZ'2024-03-01 12:00:00'"));

  private static final String KAFKA_COLUMNS =
      ", _kafka_topic STRING, _kafka_partition INT, _kafka_offset BIGINT, _kafka_timestamp"
          + " TIMESTAMP";
  private static final String KAFKA_VALUES = ", 'spark', 0, 0, TIMESTAMP'2026-01-01 00:00:00'";
  private static final String FEATURES =
      " TBLPROPERTIES ('delta.enableTypeWidening' = 'true',"
          + " 'delta.feature.timestampNtz' = 'supported')";

  /** What the Kafka pipeline appends: k1 values only the wide types hold, k2 nulls. */
  private static final String K1 =
      "{\"id\":\"k1\",\"b2s\":100001,\"b2l\":-9000000000000000000,\"b2d\":0.125,\"b2dec\":-9999999999.99,"
          + "\"s2i\":-100000,\"s2l\":9000000000000000001,\"s2d\":2.5,\"s2dec\":-9999999999,"
          + "\"i2l\":-9000000000000000000,\"i2d\":1.0E-300,\"i2dec\":-1234567890.12,"
          + "\"l2dec\":-123456789012345678901.5,\"f2d\":3.4E39,"
          + "\"d2ntz\":\"2024-03-01T23:59:59.999\",\"dec_p\":9999999999.99,"
          + "\"dec_ps\":-9999.9999,\"dec_big\":-9999999999999999999999999999.99,"
          + "\"pi\":-9000000000000000000,\"pd\":\"2024-03-02T06:30:00\"}";

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path readBack;

  SparkWidenedTables(Path dir) {
    this.dir = dir;
  }

  private Path all() {
    return dir.resolve("widened-all");
  }

  private Path nested() {
    return dir.resolve("widened-nested");
  }

  /** The {@code sqlTables} entries of the Spark job. */
  List<Map<String, Object>> jobTables() {
    List<String> all = new ArrayList<>();
    List<String> narrow = new ArrayList<>();
    List<String> before = new ArrayList<>();
    List<String> nulls = new ArrayList<>();
    List<String> after = new ArrayList<>();
    for (Column c : COLUMNS) {
      narrow.add(c.name() + " " + c.narrow());
      before.add(c.before());
      nulls.add(
          switch (c.name()) {
            case "pi" -> "8";
            case "pd" -> "DATE'1969-12-31'";
            default -> "NULL";
          });
      after.add(c.after());
    }
    all.add(
        "CREATE TABLE delta.`{path}` (id STRING, "
            + String.join(", ", narrow)
            + KAFKA_COLUMNS
            + ") USING delta PARTITIONED BY (pi, pd)"
            + FEATURES);
    all.add(
        "INSERT INTO delta.`{path}` VALUES ('s1', "
            + String.join(", ", before)
            + KAFKA_VALUES
            + "), ('s2', "
            + String.join(", ", nulls)
            + KAFKA_VALUES
            + ")");
    for (Column c : COLUMNS) {
      for (String type : c.wider()) {
        all.add("ALTER TABLE delta.`{path}` ALTER COLUMN " + c.name() + " TYPE " + type);
      }
    }
    all.add(
        "INSERT INTO delta.`{path}` VALUES ('s3', "
            + String.join(", ", after)
            + KAFKA_VALUES
            + ")");

    List<String> nested = new ArrayList<>();
    nested.add(
        "CREATE TABLE delta.`{path}` (id STRING, st STRUCT<x: INT, y: SMALLINT>,"
            + " arr ARRAY<SMALLINT>, m MAP<INT, FLOAT>,"
            + " items ARRAY<STRUCT<d: DATE, e: DECIMAL(5,2)>>) USING delta"
            + FEATURES);
    nested.add(
        "INSERT INTO delta.`{path}` VALUES ('n1', named_struct('x', 2147483647, 'y', -7),"
            + " array(1, -2, NULL), map(3, CAST(0.1 AS FLOAT), -4, NULL),"
            + " array(named_struct('d', DATE'2024-02-29', 'e', 1.25), NULL)),"
            + " ('n2', NULL, NULL, NULL, NULL)");
    for (String change :
        List.of(
            "st.x TYPE BIGINT",
            "st.y TYPE DOUBLE",
            "arr.element TYPE INT",
            "m.key TYPE BIGINT",
            "m.value TYPE DOUBLE",
            "items.element.d TYPE TIMESTAMP_NTZ",
            "items.element.e TYPE DECIMAL(10,3)")) {
      nested.add("ALTER TABLE delta.`{path}` ALTER COLUMN " + change);
    }
    nested.add(
        "INSERT INTO delta.`{path}` VALUES ('n3', named_struct('x', 9000000000000000000, 'y',"
            + " 0.5D), array(100000), map(9000000000000000000, 1.0E300D),"
            + " array(named_struct('d', TIMESTAMP_NTZ'2024-03-01 12:00:00', 'e', 1234567.125)))");
    return List.of(
        Map.of("path", all().toString(), "statements", all),
        Map.of("path", nested().toString(), "statements", nested));
  }

  /** A Kafka pipeline appends values only the wide types hold; returns Spark's read of it. */
  List<Map<String, Object>> appendAndListReads() throws Exception {
    String topic = broker.createTopic("append-widened-all", 1);
    broker.send(topic, 0, List.of(K1, "{\"id\":\"k2\"}"));
    PipelineSpec spec =
        PipelineParser.parse(
            """
            pipeline: append-widened-all
            source:
              kafka: { bootstrap-servers: %s, topics: [%s] }
            format:
              json:
                schema:
            %s
            sink:
              delta: { path: %s, partition-by: [pi, pd] }
            checkpoint: %s-checkpoint
            """
                .formatted(broker.bootstrapServers(), topic, declared(), all(), all()),
            "append-widened-all.yaml",
            Map.of());
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
    readBack = Files.createDirectories(dir.resolve("spark")).resolve("widened-all.jsonl");
    return List.of(Map.of("path", all().toString(), "out", readBack.toString()));
  }

  /**
   * The pipeline's columns, one per line (a decimal's comma would end an entry of a flow mapping):
   * each column's wide type, as Tributary names it.
   */
  private static String declared() {
    StringBuilder yaml = new StringBuilder("      id: string");
    for (Column c : COLUMNS) {
      String type = c.wider().get(c.wider().size() - 1).toLowerCase(Locale.ROOT);
      yaml.append("\n      ")
          .append(c.name())
          .append(": ")
          .append(type.equals("bigint") ? "long" : type);
    }
    return yaml.toString();
  }

  /**
   * The Delta source reads the nested table as Spark does; returns the rows compared (3).
   *
   * <p>Spark's read is of the table as its statements left it.
   */
  int checkNested() throws Exception {
    Map<String, JsonNode> spark = sparkRows(Path.of(nested() + ".spark.json"));
    return compare(nested(), spark);
  }

  /**
   * Spark's read after our append: the rows Spark wrote are as Spark read them before, ours hold
   * what was sent, and the Delta source reads all of them as Spark does; returns the rows (5).
   */
  int checkAll() throws Exception {
    Map<String, JsonNode> before = sparkRows(Path.of(all() + ".spark.json"));
    Map<String, JsonNode> after = sparkRows(readBack);
    assertThat(after.keySet()).containsExactly("k1", "k2", "s1", "s2", "s3");
    for (String id : before.keySet()) {
      assertThat(after.get(id)).as("Spark's row %s after our append", id).isEqualTo(before.get(id));
    }
    JsonNode sent = JSON.readTree(K1);
    sent.fieldNames()
        .forEachRemaining(
            name -> {
              JsonNode read = after.get("k1").get(name);
              JsonNode value = sent.get(name);
              if (value.isNumber()) {
                assertThat(read.decimalValue())
                    .as("k1." + name)
                    .isEqualByComparingTo(value.decimalValue());
              } else if (name.equals("id")) {
                assertThat(read.asText()).isEqualTo(value.asText());
              } else {
                assertThat(LocalDateTime.parse(read.asText()))
                    .as("k1." + name)
                    .isEqualTo(LocalDateTime.parse(value.asText()));
              }
            });
    return compare(all(), after);
  }

  /** Spark's JSON lines by id. */
  private static Map<String, JsonNode> sparkRows(Path file) throws Exception {
    Map<String, JsonNode> rows = new LinkedHashMap<>();
    for (String line : Files.readAllLines(file)) {
      JsonNode row = JSON.readTree(line);
      rows.put(row.get("id").asText(), row);
    }
    return rows;
  }

  /** Reads {@code table} with the Delta source and compares every value with Spark's row. */
  private static int compare(Path table, Map<String, JsonNode> spark) throws Exception {
    Map<String, Object[]> ours = new LinkedHashMap<>();
    StructType schema;
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      DeltaSourcePlanner planner =
          DeltaSourcePlanner.open(
              DeltaTable.open(store, TableOptions.defaults()), ChangeOptions.strict());
      schema = planner.readSchema();
      SourceRange range =
          planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.unlimited());
      for (SourceFile f : range.files()) {
        try (CloseableIterator<SourceRow> it = planner.read(f)) {
          while (it.hasNext()) {
            Object[] row = it.next().values();
            ours.put((String) row[0], row);
          }
        }
      }
    }
    assertThat(ours.keySet()).containsExactlyInAnyOrderElementsOf(spark.keySet());
    for (var e : spark.entrySet()) {
      Object[] row = ours.get(e.getKey());
      for (int i = 0; i < schema.size(); i++) {
        StructField f = schema.fields().get(i);
        assertSame(e.getKey() + "." + f.name(), e.getValue().get(f.name()), row[i], f.type());
      }
    }
    return ours.size();
  }

  /**
   * {@code ours} is the value Spark's JSON shows, in the Java class of {@code type} (a decimal of
   * the column's scale).
   */
  private static void assertSame(String where, JsonNode spark, Object ours, DataType type) {
    if (spark == null || spark.isNull()) {
      assertThat(ours).as(where).isNull();
      return;
    }
    assertThat(ours).as(where).isNotNull();
    if (type instanceof StructType struct) {
      Object[] values = (Object[]) ours;
      for (int i = 0; i < struct.size(); i++) {
        StructField f = struct.fields().get(i);
        assertSame(where + "." + f.name(), spark.get(f.name()), values[i], f.type());
      }
    } else if (type instanceof ArrayType array) {
      List<?> values = (List<?>) ours;
      assertThat(values).as(where).hasSize(spark.size());
      for (int i = 0; i < values.size(); i++) {
        assertSame(where + "[" + i + "]", spark.get(i), values.get(i), array.elementType());
      }
    } else if (type instanceof MapType map) {
      Map<?, ?> values = (Map<?, ?>) ours;
      assertThat(values).as(where).hasSize(spark.size());
      for (var e : values.entrySet()) {
        assertThat(e.getKey()).as(where + " key").isInstanceOf(javaClass(map.keyType()));
        assertSame(
            where + "[" + e.getKey() + "]",
            spark.get(e.getKey().toString()),
            e.getValue(),
            map.valueType());
      }
    } else if (type instanceof DecimalType decimal) {
      assertThat(ours).as(where).isInstanceOf(BigDecimal.class);
      assertThat(((BigDecimal) ours).scale()).as(where + " scale").isEqualTo(decimal.scale());
      assertThat((BigDecimal) ours).as(where).isEqualByComparingTo(spark.decimalValue());
    } else {
      PrimitiveType primitive = (PrimitiveType) type;
      assertThat(ours).as(where).isInstanceOf(javaClass(primitive));
      Object expected =
          switch (primitive) {
            case BYTE -> (byte) spark.asInt();
            case SHORT -> (short) spark.asInt();
            case INTEGER -> spark.asInt();
            case LONG -> spark.asLong();
            case FLOAT -> spark.floatValue();
            case DOUBLE -> spark.doubleValue();
            case STRING -> spark.asText();
            case TIMESTAMP_NTZ -> LocalDateTime.parse(spark.asText());
            case TIMESTAMP -> OffsetDateTime.parse(spark.asText()).toInstant();
            case DATE -> LocalDate.parse(spark.asText());
            case BOOLEAN -> spark.asBoolean();
            case BINARY -> throw new AssertionError(where + ": no binary columns here");
          };
      assertThat(ours).as(where).isEqualTo(expected);
    }
  }

  private static Class<?> javaClass(DataType type) {
    if (type instanceof DecimalType) {
      return BigDecimal.class;
    }
    return switch ((PrimitiveType) type) {
      case BYTE -> Byte.class;
      case SHORT -> Short.class;
      case INTEGER -> Integer.class;
      case LONG -> Long.class;
      case FLOAT -> Float.class;
      case DOUBLE -> Double.class;
      case STRING -> String.class;
      case TIMESTAMP_NTZ -> LocalDateTime.class;
      case TIMESTAMP -> Instant.class;
      case DATE -> LocalDate.class;
      case BOOLEAN -> Boolean.class;
      case BINARY -> byte[].class;
    };
  }
}
