package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TableRules;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.AddFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * For {@link SparkInteropIT} (issue 23): a Kafka pipeline from YAML appends to tables Spark 4 +
 * Delta 4 made with the features Databricks turns on, and the same Spark reads them back. The
 * target has column mapping by name, deletion vectors (a DELETE before our append), row tracking
 * and liquid clustering (domain metadata). A second table has the row rules Spark declares: a CHECK
 * constraint, a generated column and an identity column GENERATED ALWAYS; the pipeline quarantines
 * the row that breaks the constraint, computes the generated values, assigns identity values after
 * Spark's and moves the high-water mark, and Spark's own INSERT afterwards continues after ours (no
 * identity value twice).
 */
final class SparkAppendTables {
  private static final String COLUMNS =
      "(id STRING, amount BIGINT, _kafka_topic STRING, _kafka_partition INT, _kafka_offset BIGINT,"
          + " _kafka_timestamp TIMESTAMP)";
  private static final String SPARK_ROWS =
      "INSERT INTO delta.`{path}` VALUES ('s1', 1, 'spark', 0, 0, TIMESTAMP'2026-01-01 00:00:00'),"
          + " ('s2', 2, 'spark', 0, 1, TIMESTAMP'2026-01-01 00:00:01'),"
          + " ('s3', 3, 'spark', 0, 2, TIMESTAMP'2026-01-01 00:00:02')";

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path out;
  private Path ruledOut;
  private Path sparkNullError;
  private Long ourMark;

  SparkAppendTables(Path dir) {
    this.dir = dir;
  }

  /** The {@code sqlTables} of the Spark job: the tables the pipelines append to. */
  List<Map<String, Object>> jobTables() {
    return List.of(
        Map.of(
            "path",
            dir.resolve("target").toString(),
            "statements",
            List.of(
                "CREATE TABLE delta.`{path}` "
                    + COLUMNS
                    + " USING delta CLUSTER BY (id) TBLPROPERTIES ("
                    + "'delta.columnMapping.mode' = 'name', 'delta.enableDeletionVectors' = 'true',"
                    + " 'delta.enableRowTracking' = 'true')",
                SPARK_ROWS,
                "DELETE FROM delta.`{path}` WHERE id = 's2'")),
        Map.of(
            "path",
            dir.resolve("ruled").toString(),
            "statements",
            List.of(
                // Delta 4.0's SQL cannot declare generated or identity columns
                // (UNSUPPORTED_FEATURE.TABLE_OPERATION): the judge uses Delta's table builder
                Map.of(
                    "columns",
                    List.of(
                        Map.of(
                            "name",
                            "seq",
                            "type",
                            "BIGINT",
                            "identityStart",
                            100,
                            "identityStep",
                            10),
                        Map.of("name", "id", "type", "STRING"),
                        Map.of("name", "amount", "type", "BIGINT"),
                        Map.of(
                            "name", "doubled", "type", "BIGINT", "generatedAlwaysAs", "amount * 2"),
                        Map.of("name", "_kafka_topic", "type", "STRING"),
                        Map.of("name", "_kafka_partition", "type", "INT"),
                        Map.of("name", "_kafka_offset", "type", "BIGINT"),
                        Map.of("name", "_kafka_timestamp", "type", "TIMESTAMP"))),
                "ALTER TABLE " + RULED + " ADD CONSTRAINT positive CHECK (amount > 0)",
                "INSERT INTO "
                    + RULED
                    + " "
                    + RULED_INSERT
                    + " VALUES ('s1', 1, 'spark', 0, 0,"
                    + " TIMESTAMP'2026-01-01 00:00:00'), ('s2', 2, 'spark', 0, 1,"
                    + " TIMESTAMP'2026-01-01 00:00:01')")));
  }

  /** The ruled table in Spark SQL: by path. */
  private static final String RULED = "delta.`{path}`";

  /** The columns an INSERT into the ruled table names: not the identity or generated ones. */
  private static final String RULED_INSERT =
      "(id, amount, _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp)";

  /** Appends with pipelines; returns the reads Spark does afterwards. */
  Map<String, Object> appendAndListReads() throws Exception {
    String topic = broker.createTopic("append-to-spark", 1);
    broker.send(
        topic,
        0,
        List.of(
            "{\"id\":\"k1\",\"amount\":10}",
            "{\"id\":\"k2\",\"amount\":20}",
            "{\"id\":\"k3\",\"amount\":30}"));
    run(pipeline("append-target", topic, "target"));
    broker.send(topic, 0, List.of("{\"id\":\"k4\",\"amount\":40}"));
    run(pipeline("append-target", topic, "target")); // a second commit: fresh row ids again

    String ruledTopic = broker.createTopic("append-to-spark-ruled", 1);
    broker.send(
        ruledTopic,
        0,
        List.of(
            "{\"id\":\"k1\",\"amount\":10}",
            "{\"id\":\"k2\",\"amount\":-5}",
            "{\"id\":\"k3\",\"amount\":30}",
            "{\"id\":\"k5\",\"amount\":null}"));
    run(pipeline("append-ruled", ruledTopic, "ruled"));
    broker.send(ruledTopic, 0, List.of("{\"id\":\"k4\",\"amount\":40}"));
    run(pipeline("append-ruled", ruledTopic, "ruled")); // a second commit moves the mark again
    try (var store = ObjectStores.open(dir.resolve("ruled-quarantine").toString(), null)) {
      List<Object[]> quarantined = new KernelReader(store).rows();
      // k5: a null amount breaks the constraint too, as Spark says below
      assertThat(quarantined)
          .extracting(q -> new String((byte[]) q[5], StandardCharsets.UTF_8))
          .containsExactlyInAnyOrder(
              "{\"id\":\"k2\",\"amount\":-5}", "{\"id\":\"k5\",\"amount\":null}");
      assertThat(quarantined)
          .allSatisfy(
              q ->
                  assertThat((String) q[6])
                      .contains("violates the CHECK constraint positive (amount > 0)"));
    }
    try (var store = ObjectStores.open(dir.resolve("ruled").toString(), null)) {
      ourMark =
          TableRules.of(DeltaTable.open(store, TableOptions.defaults()).snapshot())
              .identity("seq")
              .highWaterMark();
    }

    Path spark = Files.createDirectories(dir.resolve("spark"));
    out = spark.resolve("target.jsonl");
    ruledOut = spark.resolve("ruled.jsonl");
    sparkNullError = spark.resolve("ruled-null.error");
    return Map.of(
        "reads",
        List.of(
            Map.of("path", dir.resolve("target").toString(), "out", out.toString()),
            Map.of(
                "path",
                dir.resolve("ruled").toString(),
                "out",
                ruledOut.toString(),
                // Spark appends after us: its identity values must follow our high-water mark;
                // and it refuses a null amount as we do (Delta: a CHECK is broken by null too)
                "statements",
                List.of(
                    Map.of(
                        "sql",
                        "INSERT INTO "
                            + RULED
                            + " "
                            + RULED_INSERT
                            + " VALUES ('s8', NULL, 'spark', 0, 8, TIMESTAMP'2026-01-01 00:00:08')",
                        "expectError",
                        sparkNullError.toString()),
                    "INSERT INTO "
                        + RULED
                        + " "
                        + RULED_INSERT
                        + " VALUES ('s9', 9, 'spark', 0, 9, TIMESTAMP'2026-01-01 00:00:09')"))));
  }

  /**
   * What Spark reads of the ruled table after its own INSERT that followed ours: every row but the
   * quarantined one, generated values right, identity values unique, ours after Spark's first ones
   * and Spark's last one after ours.
   */
  void checkRuled() throws Exception {
    Map<String, JsonNode> byId = new TreeMap<>();
    for (String line : Files.readAllLines(ruledOut)) {
      JsonNode row = new ObjectMapper().readTree(line);
      byId.put(row.get("id").asText(), row);
    }
    assertThat(byId.keySet()).containsExactly("k1", "k3", "k4", "s1", "s2", "s9");
    byId.values()
        .forEach(
            r ->
                assertThat(r.get("doubled").asLong())
                    .as("doubled of %s", r)
                    .isEqualTo(r.get("amount").asLong() * 2));
    Map<String, Long> seq = new TreeMap<>();
    byId.forEach((id, r) -> seq.put(id, r.get("seq").asLong()));
    assertThat(seq.values()).doesNotHaveDuplicates().allMatch(v -> (v - 100) % 10 == 0);
    long sparkFirst = Math.max(seq.get("s1"), seq.get("s2"));
    assertThat(seq.get("k1")).isGreaterThan(sparkFirst);
    assertThat(seq.get("k3")).isGreaterThan(seq.get("k1"));
    assertThat(seq.get("k4")).isGreaterThan(seq.get("k3")).isEqualTo(ourMark);
    assertThat(seq.get("s9")).isGreaterThan(ourMark);
    // Delta's null semantics, which TableRowRules follows: Spark refuses the null amount too
    assertThat(Files.readString(sparkNullError))
        .contains("positive")
        .containsIgnoringCase("amount > 0")
        .doesNotContain("no error");
  }

  /** What Spark and Kernel read back, and the row ids we assigned. */
  void check() throws Exception {
    List<String> rows = Files.readAllLines(out);
    assertThat(rows)
        .extracting(r -> r.substring(0, r.indexOf(",\"_kafka_topic")) + "}")
        .containsExactly(
            "{\"id\":\"k1\",\"amount\":10}",
            "{\"id\":\"k2\",\"amount\":20}",
            "{\"id\":\"k3\",\"amount\":30}",
            "{\"id\":\"k4\",\"amount\":40}",
            "{\"id\":\"s1\",\"amount\":1}",
            "{\"id\":\"s3\",\"amount\":3}");
    assertThat(Files.readString(Path.of(out + ".columns")))
        .isEqualTo("id,amount,_kafka_topic,_kafka_partition,_kafka_offset,_kafka_timestamp");
    try (var store = ObjectStores.open(dir.resolve("target").toString(), null)) {
      var snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      assertThat(snapshot.state().domains()).containsKeys("delta.rowTracking", "delta.clustering");
      List<AddFile> ours =
          snapshot.state().files().values().stream()
              .filter(a -> a.deletionVector() == null && a.defaultRowCommitVersion() > 2)
              .toList();
      assertThat(ours).isNotEmpty().allSatisfy(a -> assertThat(a.baseRowId()).isGreaterThan(2));
      assertThat(new KernelReader(store).rows()).hasSize(6);
    }
  }

  private PipelineSpec pipeline(String name, String topic, String table) {
    return PipelineParser.parse(
        """
        pipeline: %s
        source:
          kafka: { bootstrap-servers: %s, topics: [%s] }
        format:
          json:
            schema: { id: string, amount: long }
        sink:
          delta: { path: %s/%s }
        checkpoint: %s/%s-checkpoint
        """
            .formatted(name, broker.bootstrapServers(), topic, dir, table, dir, table),
        name + ".yaml",
        Map.of());
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
  }
}
