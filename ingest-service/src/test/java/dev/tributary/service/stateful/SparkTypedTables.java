package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.interop.ParquetFooters;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * For {@link SparkInteropIT} (issue 23): tables Spark 4 + Delta 4 writes with every column type
 * Tributary reads — byte, short, float, binary, decimals of precision 5, 18 and 38, timestamp,
 * timestamp_ntz (the {@code timestampNtz} table feature), date, a struct holding an array, an array
 * of longs, an array of structs and a map of arrays, with nulls, empty arrays and maps — stored
 * four ways: Spark's defaults (TIMESTAMP(MICROS), decimals in INT32/INT64/FIXED_LEN_BYTE_ARRAY,
 * three-level lists), {@code outputTimestampType=INT96}, {@code
 * outputTimestampType=TIMESTAMP_MILLIS} and {@code writeLegacyFormat=true} (every decimal a
 * FIXED_LEN_BYTE_ARRAY, two-level lists); and a table partitioned by byte, short and timestamp_ntz
 * columns. Each is read by the Delta source's planner and compared with Delta Kernel's read, value
 * for value. Then a Kafka pipeline appends to a Spark-made table with timestamp_ntz, byte, short
 * and float columns, and the same Spark reads the rows back.
 */
final class SparkTypedTables {
  private static final String COLUMNS =
      "(id BIGINT, b TINYINT, s SMALLINT, f FLOAT, bin BINARY, d5 DECIMAL(5,2), d18 DECIMAL(18,3),"
          + " d38 DECIMAL(38,10), ts TIMESTAMP, ntz TIMESTAMP_NTZ, day DATE,"
          + " st STRUCT<x: INT, tags: ARRAY<STRING>>, arr ARRAY<BIGINT>,"
          + " pts ARRAY<STRUCT<k: STRING, v: DOUBLE>>, m MAP<STRING, ARRAY<INT>>)";

  /**
   * 40 rows covering negative, zero and large values, nulls, empty arrays and maps; one null row.
   */
  private static final List<String> ROWS =
      List.of(
          """
          INSERT INTO delta.`{path}` SELECT /*+ REPARTITION(2) */ id,
            CAST(id * 6 - 128 AS TINYINT), CAST(id * 1500 - 32768 AS SMALLINT),
            CAST(id / 4.0 - 3 AS FLOAT), CAST(concat('bin', id) AS BINARY),
            CAST(id * 1.25 - 20 AS DECIMAL(5,2)),
            CAST(id * 123456789.125 - 1000 AS DECIMAL(18,3)),
            CAST(id * 12345678901234567.0123456789 - 7 AS DECIMAL(38,10)),
            timestamp_micros(-150000000000000 + id * 86400123457),
            CAST(timestamp_micros(1774747800000000 + id * 3600000001) AS TIMESTAMP_NTZ),
            date_add(DATE'1965-06-01', CAST(id * 400 AS INT)),
            CASE WHEN id % 6 = 5 THEN NULL
              ELSE named_struct('x', CAST(id AS INT), 'tags', array(concat('t', id), NULL)) END,
            CASE WHEN id % 5 = 0 THEN NULL WHEN id % 5 = 1 THEN CAST(array() AS ARRAY<BIGINT>)
              ELSE sequence(0L, id % 4 + 1) END,
            array(named_struct('k', 'a', 'v', id * 0.5D), CASE WHEN id % 2 = 0 THEN NULL
              ELSE named_struct('k', CAST(NULL AS STRING), 'v', CAST(NULL AS DOUBLE)) END),
            CASE WHEN id % 7 = 0 THEN CAST(map() AS MAP<STRING, ARRAY<INT>>)
              WHEN id % 7 = 1 THEN NULL
              ELSE map('a', array(1, NULL), concat('k', id), CAST(NULL AS ARRAY<INT>)) END
          FROM range(0, 40)
          """,
          "INSERT INTO delta.`{path}` (id) VALUES (1000)");

  /** Table name to its SQL. */
  static final Map<String, List<String>> TABLES = new LinkedHashMap<>();

  static {
    TABLES.put("types-default", typed(null));
    TABLES.put("types-int96", typed("spark.sql.parquet.outputTimestampType = INT96"));
    TABLES.put("types-millis", typed("spark.sql.parquet.outputTimestampType = TIMESTAMP_MILLIS"));
    TABLES.put("types-legacy", typed("spark.sql.parquet.writeLegacyFormat = true"));
    TABLES.put(
        "types-partitioned",
        List.of(
            "CREATE TABLE delta.`{path}` (id BIGINT, pb TINYINT, ps SMALLINT, pt TIMESTAMP_NTZ,"
                + " v STRING) USING delta PARTITIONED BY (pb, ps, pt)",
            "INSERT INTO delta.`{path}` SELECT id, CAST(id % 2 - 1 AS TINYINT),"
                + " CAST(id % 3 * 1000 - 1000 AS SMALLINT),"
                + " CASE WHEN id % 4 < 3 THEN TIMESTAMP_NTZ'2026-01-01 10:00:00.123456' END,"
                + " concat('v', id) FROM range(0, 12)"));
    TABLES.put(
        "ntz-target",
        List.of(
            "CREATE TABLE delta.`{path}` (id STRING, b TINYINT, s SMALLINT, t TIMESTAMP_NTZ,"
                + " f FLOAT, _kafka_topic STRING, _kafka_partition INT, _kafka_offset BIGINT,"
                + " _kafka_timestamp TIMESTAMP) USING delta",
            "INSERT INTO delta.`{path}` VALUES ('s1', -1, -300, TIMESTAMP_NTZ'2025-12-31 23:59:59',"
                + " 0.25, 'spark', 0, 0, TIMESTAMP'2026-01-01 00:00:00')"));
  }

  private static List<String> typed(String setting) {
    List<String> sql = new ArrayList<>();
    if (setting != null) {
      sql.add("SET " + setting);
    }
    sql.add("CREATE TABLE delta.`{path}` " + COLUMNS + " USING delta");
    sql.addAll(ROWS);
    if (setting != null) {
      sql.add("RESET " + setting.substring(0, setting.indexOf(' ')));
    }
    return sql;
  }

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path out;

  SparkTypedTables(Path dir) {
    this.dir = dir;
  }

  /** The {@code sqlTables} entries of the Spark job. */
  List<Map<String, Object>> jobTables() {
    List<Map<String, Object>> tables = new ArrayList<>();
    TABLES.forEach(
        (name, sql) -> tables.add(Map.of("path", dir.resolve(name).toString(), "statements", sql)));
    return tables;
  }

  /** Reads a table as the Delta source does and as Kernel does; returns the rows compared. */
  int check(String name) throws Exception {
    Path path = dir.resolve(name);
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaSourcePlanner planner =
          DeltaSourcePlanner.open(
              DeltaTable.open(store, TableOptions.defaults()), ChangeOptions.strict());
      SourceRange range =
          planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.unlimited());
      List<List<Object>> ours = new ArrayList<>();
      for (SourceFile f : range.files()) {
        try (CloseableIterator<SourceRow> rows = planner.read(f)) {
          while (rows.hasNext()) {
            ours.add(deep(rows.next().values()));
          }
        }
      }
      KernelReader kernel = new KernelReader(store);
      assertThat(planner.readSchema().fieldNames())
          .as("%s: column names", name)
          .isEqualTo(kernel.columnNames());
      List<List<Object>> theirs = new ArrayList<>();
      kernel.rows().forEach(r -> theirs.add(deep(r)));
      Comparator<List<Object>> byId = Comparator.comparingLong(r -> (Long) r.get(0));
      ours.sort(byId);
      theirs.sort(byId);
      assertThat(ours).as("%s: source.delta's planner vs Delta Kernel", name).isEqualTo(theirs);
      assertThat(ours.size())
          .as("%s: the rows Spark reads", name)
          .isEqualTo(Files.readAllLines(Path.of(path + ".spark.json")).size());
      return ours.size();
    }
  }

  /** The Parquet schema Spark wrote the table's first data file with. */
  MessageType fileSchema(String name) throws Exception {
    return ParquetFooters.firstFileSchema(dir.resolve(name));
  }

  /** Appends with a pipeline declaring the narrow and zone-less types; returns Spark's reads. */
  List<Map<String, Object>> appendAndListReads() throws Exception {
    String topic = broker.createTopic("append-typed", 1);
    broker.send(
        topic,
        0,
        List.of(
            // Spark's JSON shows milliseconds; Kernel's read below checks the microseconds
            "{\"id\":\"k1\",\"b\":-128,\"s\":32767,\"t\":\"2026-03-29T02:30:00.123456\",\"f\":1.5}",
            "{\"id\":\"k2\",\"b\":127,\"s\":-32768,\"t\":\"1969-07-20 20:17:40\",\"f\":-0.125}",
            "{\"id\":\"k3\"}"));
    PipelineSpec spec =
        PipelineParser.parse(
            """
            pipeline: append-typed
            source:
              kafka: { bootstrap-servers: %s, topics: [%s] }
            format:
              json:
                schema: { id: string, b: byte, s: short, t: timestamp_ntz, f: float }
            sink:
              delta: { path: %s/ntz-target }
            checkpoint: %s/ntz-target-checkpoint
            """
                .formatted(broker.bootstrapServers(), topic, dir, dir),
            "append-typed.yaml",
            Map.of());
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
    out = Files.createDirectories(dir.resolve("spark")).resolve("ntz-target.jsonl");
    return List.of(Map.of("path", dir.resolve("ntz-target").toString(), "out", out.toString()));
  }

  /** What Spark read back from the table after our append, and Kernel's read of it. */
  void checkAppend() throws Exception {
    List<String> rows = Files.readAllLines(out);
    assertThat(rows)
        .extracting(
            r ->
                r.contains(",\"_kafka_topic")
                    ? r.substring(0, r.indexOf(",\"_kafka_topic")) + "}"
                    : r)
        .containsExactly(
            // Spark's JSON shows milliseconds; Kernel's read below checks the microseconds
            "{\"id\":\"k1\",\"b\":-128,\"s\":32767,\"t\":\"2026-03-29T02:30:00.123\",\"f\":1.5}",
            "{\"id\":\"k2\",\"b\":127,\"s\":-32768,\"t\":\"1969-07-20T20:17:40.000\",\"f\":-0.125}",
            "{\"id\":\"k3\"}",
            "{\"id\":\"s1\",\"b\":-1,\"s\":-300,\"t\":\"2025-12-31T23:59:59.000\",\"f\":0.25}");
    try (ObjectStore store = ObjectStores.open(dir.resolve("ntz-target").toString(), null)) {
      List<Object[]> kernel = new KernelReader(store).rows();
      assertThat(kernel)
          .filteredOn(r -> "k1".equals(r[0]))
          .singleElement()
          .satisfies(
              r ->
                  assertThat(Arrays.asList(r).subList(0, 5))
                      .containsExactly(
                          "k1",
                          (byte) -128,
                          (short) 32767,
                          LocalDateTime.parse("2026-03-29T02:30:00.123456"),
                          1.5f));
    }
  }

  static void assertPhysical(MessageType schema, String column, PrimitiveTypeName physical) {
    assertThat(schema.getType(column).asPrimitiveType().getPrimitiveTypeName())
        .as("%s stored as", column)
        .isEqualTo(physical);
  }

  /** Values that compare by content: structs and bytes as lists, nested lists and maps too. */
  private static List<Object> deep(Object[] row) {
    List<Object> out = new ArrayList<>();
    for (Object v : row) {
      out.add(deepValue(v));
    }
    return out;
  }

  private static Object deepValue(Object value) {
    if (value instanceof Object[] struct) {
      return deep(struct);
    }
    if (value instanceof byte[] bytes) {
      List<Byte> out = new ArrayList<>();
      for (byte b : bytes) {
        out.add(b);
      }
      return out;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(v -> out.add(deepValue(v)));
      return out;
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(deepValue(k), deepValue(v)));
      return out;
    }
    return value;
  }
}
