package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * For {@link SparkInteropIT} (one Spark start for every Spark read): Spark 4 + Delta 4 read a sink
 * table that schema evolution changed: {@code _rescued_data} and a column added by {@code mode:
 * add-columns} in the commit of its first rows; the rows written before the column read null in it;
 * and a table whose declared {@code amount} widened from int to long (the typeWidening table
 * feature): rows of the older INT32 files and the new ones read as long.
 */
final class EvolvedTablesForSpark {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private Path out;
  private Path widenedOut;

  EvolvedTablesForSpark(Path dir) {
    this.dir = dir;
  }

  /** Writes the tables; returns the Spark reads of them (the {@code reads} of SparkJudge's job). */
  List<Map<String, String>> prepare() throws Exception {
    String topic = broker.createTopic("evolved-spark", 1);
    var spec =
        PipelineParser.parse(
            """
        pipeline: evolved-spark
        source:
          kafka: { bootstrap-servers: %s, topics: [%s] }
        format:
          json:
            schema: { id: string, amount: long }
        schema-evolution: { mode: add-columns, rescue: true }
        sink:
          delta: { path: %s/table }
        checkpoint: %s/checkpoint
        """
                .formatted(broker.bootstrapServers(), topic, dir, dir),
            "evolved-spark.yaml",
            Map.of());
    broker.send(
        topic, 0, List.of("{\"id\":\"o1\",\"amount\":10}", "{\"id\":\"o2\",\"amount\":\"x\"}"));
    run(spec);
    broker.send(
        topic, 0, List.of("{\"id\":\"o3\",\"amount\":30,\"tier\":\"gold\",\"meta\":{\"a\":1}}"));
    run(spec);

    // In the same Spark run (a Spark start costs ~30 s): a table whose declared amount widened int
    // -> long.
    String widenTopic = broker.createTopic("widened-spark", 1);
    broker.send(
        widenTopic, 0, List.of("{\"id\":\"w1\",\"amount\":7}", "{\"id\":\"w2\",\"amount\":-8}"));
    run(widening(widenTopic, "int"));
    Path widenedTable = dir.resolve("widened");
    long beforeWidening = version(widenedTable);
    broker.send(widenTopic, 0, List.of("{\"id\":\"w3\",\"amount\":3000000000}"));
    run(widening(widenTopic, "long"));
    run(widening(widenTopic, "long")); // a restart finds it widened
    assertThat(version(widenedTable)).isEqualTo(beforeWidening + 2);
    try (var store = ObjectStores.open(widenedTable.toString(), null)) {
      var kernel = new KernelReader(store);
      int amount = kernel.columnNames().indexOf("amount");
      assertThat(kernel.rows())
          .extracting(r -> r[amount])
          .containsExactlyInAnyOrder(
              7L, -8L, 3_000_000_000L); // Delta Kernel reads the INT32 file as long too
    }

    Path work = Files.createDirectories(dir.resolve("spark"));
    out = work.resolve("rows.jsonl");
    widenedOut = work.resolve("widened.jsonl");
    return List.of(
        Map.of("path", dir.resolve("table").toString(), "out", out.toString()),
        Map.of("path", widenedTable.toString(), "out", widenedOut.toString()));
  }

  /** What Spark read: the added column, the rescued data, the widened column. */
  void check() throws Exception {
    assertThat(Files.readAllLines(widenedOut))
        .extracting(r -> r.substring(0, r.indexOf(",\"_kafka_topic")) + "}")
        .containsExactly(
            "{\"id\":\"w1\",\"amount\":7}",
            "{\"id\":\"w2\",\"amount\":-8}",
            "{\"id\":\"w3\",\"amount\":3000000000}");

    assertThat(Files.readString(out.resolveSibling("rows.jsonl.columns")))
        .isEqualTo(
            "id,amount,_kafka_topic,"
                + "_kafka_partition,_kafka_offset,_kafka_timestamp,_rescued_data,tier,meta");
    List<String> rows = Files.readAllLines(out);
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0))
        .startsWith("{\"id\":\"o1\",\"amount\":10,")
        .doesNotContain("tier", "_rescued_data");
    assertThat(rows.get(1))
        .startsWith("{\"id\":\"o2\",")
        .doesNotContain("\"amount\":", "tier")
        .contains("\"_rescued_data\":\"{\\\"amount\\\":\\\"x\\\"}\"");
    assertThat(rows.get(2))
        .startsWith("{\"id\":\"o3\",\"amount\":30,")
        .endsWith("\"tier\":\"gold\",\"meta\":\"{\\\"a\\\":1}\"}");
  }

  /** A plain pipeline (no schema evolution) declaring {@code amount} as {@code amountType}. */
  private PipelineSpec widening(String topic, String amountType) {
    return PipelineParser.parse(
        """
        pipeline: widened-spark
        source:
          kafka: { bootstrap-servers: %s, topics: [%s] }
        format:
          json:
            schema: { id: string, amount: %s }
        sink:
          delta: { path: %s/widened }
        checkpoint: %s/widened-checkpoint
        """
            .formatted(broker.bootstrapServers(), topic, amountType, dir, dir),
        "widened-spark.yaml",
        Map.of());
  }

  private static long version(Path table) throws Exception {
    try (var store = ObjectStores.open(table.toString(), null)) {
      var snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      assertThat(snapshot.state().protocol().supports("typeWidening"))
          .as("typeWidening at version %s", snapshot.version())
          .isEqualTo(snapshot.version() > 1);
      return snapshot.version();
    }
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
  }
}
