package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.tributary.table.TableException;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.TypeChange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * For {@link SparkInteropIT} (issue 23): a table Spark 4 + Delta 4 writes with {@code VARIANT}
 * columns (the {@code variantType} feature), top-level and inside a struct, holding what {@code
 * parse_json} makes of nested objects and arrays, decimals, integers beyond int64, doubles, escaped
 * strings and JSON nulls, and what {@code CAST(... AS VARIANT)} makes of dates, timestamps (with
 * and without time zone), binaries, floats and decimals. Spark also writes {@code to_json} of each
 * variant to a second table; the Delta source must read every variant as exactly that text. A sink
 * on the variant table is refused at start, naming the columns.
 *
 * <p>And a table with {@code typeWidening} whose columns Spark widened with {@code ALTER COLUMN ...
 * TYPE} (int to bigint, float to double) after writing rows: a Kafka pipeline appends values only
 * the wide types hold, Spark reads all rows back, and the columns' {@code delta.typeChanges} are
 * still in the table's schema.
 */
final class SparkVariantTables {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** JSON texts for parse_json, by id: what a Kafka payload might hold. */
  private static final List<String> PARSED =
      List.of(
          "{\"name\":\"x\",\"n\":1,\"nested\":{\"b\":[1,2,{\"c\":null}],\"a\":true},\"z\":-5}",
          "[1, 2.50, -0.001, 1e10, 1.5E300, 12345678901234567890, -9223372036854775808,"
              + " 123456789012345678901234567890.123, 0.0, 100]",
          "\"a \\\"quoted\\\" string, \\u00e9t\\u00e9, a tab\\t and a newline\\n\"",
          "null",
          "{\"k\": 3.14159, \"big\": 9223372036854775808, \"small\": 0.1, \"neg\": -0.0,"
              + " \"empty\": {}, \"none\": [], \"deep\": [[[{\"x\": [false]}]]]}",
          "-17",
          "{\"text\": \"a string long enough not to be one of the short strings of the encoding\"}");

  /** SQL expressions of type VARIANT that parse_json never makes: the typed primitives. */
  private static final List<String> CAST =
      List.of(
          "CAST(DATE'2024-02-29' AS VARIANT)",
          "CAST(TIMESTAMP'2024-02-29 10:00:00.123456' AS VARIANT)",
          "CAST(TIMESTAMP_NTZ'1969-07-20 20:17:40.5' AS VARIANT)",
          "CAST(X'0102FF' AS VARIANT)",
          "CAST(CAST(1.25 AS FLOAT) AS VARIANT)",
          "CAST(CAST(12.50 AS DECIMAL(10,2)) AS VARIANT)",
          "CAST(CAST(-1 AS TINYINT) AS VARIANT)",
          "CAST(true AS VARIANT)");

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path widenedOut;

  SparkVariantTables(Path dir) {
    this.dir = dir;
  }

  /** The {@code sqlTables} entries of the Spark job: the variant table, its to_json, widening. */
  List<Map<String, Object>> jobTables() {
    StringBuilder rows = new StringBuilder();
    for (int i = 0; i < PARSED.size(); i++) {
      String literal = "'" + PARSED.get(i).replace("\\", "\\\\").replace("'", "\\'") + "'";
      rows.append(i == 0 ? "" : ", ")
          .append("(")
          .append(i)
          .append(", parse_json(")
          .append(literal)
          .append("), named_struct('n', ")
          .append(i)
          .append(", 'w', parse_json(")
          .append(literal)
          .append(")))");
    }
    for (int i = 0; i < CAST.size(); i++) {
      int id = 100 + i;
      rows.append(", (")
          .append(id)
          .append(", ")
          .append(CAST.get(i))
          .append(", named_struct('n', ")
          .append(id)
          .append(", 'w', CAST(NULL AS VARIANT)))");
    }
    rows.append(", (200, CAST(NULL AS VARIANT), CAST(NULL AS STRUCT<n: INT, w: VARIANT>))");
    List<Map<String, Object>> tables = new ArrayList<>();
    tables.add(
        Map.of(
            "path",
            dir.resolve("variant").toString(),
            "statements",
            List.of(
                "CREATE TABLE delta.`{path}` (id BIGINT, v VARIANT, st STRUCT<n: INT, w: VARIANT>)"
                    + " USING delta",
                "INSERT INTO delta.`{path}` VALUES " + rows)));
    tables.add(
        Map.of(
            "path",
            dir.resolve("variant-json").toString(),
            "statements",
            List.of(
                "CREATE TABLE delta.`{path}` USING delta AS SELECT id, to_json(v) AS v,"
                    + " to_json(st.w) AS w FROM delta.`"
                    + dir.resolve("variant")
                    + "`")));
    tables.add(
        Map.of(
            "path",
            dir.resolve("widened").toString(),
            "statements",
            List.of(
                "CREATE TABLE delta.`{path}` (id STRING, a INT, f FLOAT, _kafka_topic STRING,"
                    + " _kafka_partition INT, _kafka_offset BIGINT, _kafka_timestamp TIMESTAMP)"
                    + " USING delta TBLPROPERTIES ('delta.enableTypeWidening' = 'true')",
                "INSERT INTO delta.`{path}` VALUES ('s1', 2147483647, 0.25, 'spark', 0, 0,"
                    + " TIMESTAMP'2026-01-01 00:00:00')",
                "ALTER TABLE delta.`{path}` ALTER COLUMN a TYPE BIGINT",
                "ALTER TABLE delta.`{path}` ALTER COLUMN f TYPE DOUBLE")));
    return tables;
  }

  /**
   * Reads the variant table as the Delta source does and compares every variant with Spark's {@code
   * to_json} of it; returns the rows compared.
   */
  int checkVariants() throws Exception {
    Map<Long, List<String>> spark = new TreeMap<>();
    for (String line : Files.readAllLines(Path.of(dir.resolve("variant-json") + ".spark.json"))) {
      JsonNode row = JSON.readTree(line);
      spark.put(row.get("id").asLong(), Arrays.asList(text(row.get("v")), text(row.get("w"))));
    }
    Map<Long, List<String>> ours = new TreeMap<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("variant").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
      assertThat(planner.readSchema().fields().get(1).type())
          .as("a variant reaches the pipeline as a string")
          .isEqualTo(PrimitiveType.STRING);
      SourceRange range =
          planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.unlimited());
      for (SourceFile f : range.files()) {
        try (CloseableIterator<SourceRow> it = planner.read(f)) {
          while (it.hasNext()) {
            Object[] row = it.next().values();
            Object[] st = (Object[]) row[2];
            ours.put(
                (Long) row[0], Arrays.asList((String) row[1], st == null ? null : (String) st[1]));
          }
        }
      }
      assertThatThrownBy(table::checkAppendable)
          .isInstanceOf(TableException.class)
          .hasMessageContaining("variant columns: read only (v, st)");
    }
    assertThat(ours).isEqualTo(spark);
    assertThat(ours.get(1L).get(0))
        .as("a sample, so that a reader of the test sees the form")
        .startsWith("[1,2.5,-0.001,1.0E10,1.5E300,12345678901234567890,");
    return ours.size();
  }

  /** Appends values only the widened types hold; returns Spark's read of the result. */
  List<Map<String, Object>> appendAndListReads() throws Exception {
    String topic = broker.createTopic("append-widened", 1);
    broker.send(
        topic,
        0,
        List.of(
            "{\"id\":\"k1\",\"a\":3000000000,\"f\":0.1}",
            "{\"id\":\"k2\",\"a\":-9007199254740993,\"f\":1.0E300}"));
    PipelineSpec spec =
        PipelineParser.parse(
            """
            pipeline: append-widened
            source:
              kafka: { bootstrap-servers: %s, topics: [%s] }
            format:
              json:
                schema: { id: string, a: long, f: double }
            sink:
              delta: { path: %s/widened }
            checkpoint: %s/widened-checkpoint
            """
                .formatted(broker.bootstrapServers(), topic, dir, dir),
            "append-widened.yaml",
            Map.of());
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
    widenedOut = Files.createDirectories(dir.resolve("spark")).resolve("widened.jsonl");
    return List.of(Map.of("path", dir.resolve("widened").toString(), "out", widenedOut.toString()));
  }

  /** What Spark read back after our append, and the type changes still in the schema. */
  void checkWidenedAppend() throws Exception {
    List<String> rows = Files.readAllLines(widenedOut);
    assertThat(rows)
        .extracting(r -> r.substring(0, r.indexOf(",\"_kafka_topic")) + "}")
        .containsExactly(
            "{\"id\":\"k1\",\"a\":3000000000,\"f\":0.1}",
            "{\"id\":\"k2\",\"a\":-9007199254740993,\"f\":1.0E300}",
            "{\"id\":\"s1\",\"a\":2147483647,\"f\":0.25}");
    try (ObjectStore store = ObjectStores.open(dir.resolve("widened").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      StructType schema = table.snapshot().schema();
      Map<String, List<TypeChange>> changes = new HashMap<>();
      for (StructField f : schema.fields()) {
        changes.put(f.name(), f.typeChanges());
      }
      assertThat(changes.get("a"))
          .containsExactly(new TypeChange(PrimitiveType.INTEGER, PrimitiveType.LONG));
      assertThat(changes.get("f"))
          .containsExactly(new TypeChange(PrimitiveType.FLOAT, PrimitiveType.DOUBLE));
      assertThat(table.snapshot().state().protocol().supports("typeWidening")).isTrue();
    }
  }

  private static String text(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }
}
