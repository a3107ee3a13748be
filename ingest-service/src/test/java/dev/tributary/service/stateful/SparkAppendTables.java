package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.AddFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * For {@link SparkInteropIT} (issue 23): a Kafka pipeline from YAML appends to tables Spark 4 +
 * Delta 4 made with the features Databricks turns on, and the same Spark reads them back. The
 * target has column mapping by name, deletion vectors (a DELETE before our append), row tracking
 * and liquid clustering (domain metadata); a second table has a CHECK constraint, which Tributary
 * does not evaluate: the pipeline refuses it at start, naming the feature, before any batch.
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
            dir.resolve("constrained").toString(),
            "statements",
            List.of(
                "CREATE TABLE delta.`{path}` " + COLUMNS + " USING delta",
                "ALTER TABLE delta.`{path}` ADD CONSTRAINT positive CHECK (amount > 0)")));
  }

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

    assertThatThrownBy(() -> run(pipeline("append-constrained", topic, "constrained")))
        .hasMessageContaining("append-constrained")
        .hasMessageContaining("checkConstraints")
        .hasMessageContaining("docs/PROTOCOL_SUPPORT.md");

    out = Files.createDirectories(dir.resolve("spark")).resolve("target.jsonl");
    return Map.of(
        "reads", List.of(Map.of("path", dir.resolve("target").toString(), "out", out.toString())));
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
