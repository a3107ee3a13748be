package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4 + Delta 4 read a sink table that schema evolution changed: {@code _rescued_data} and a
 * column added by {@code mode: add-columns} in the commit of its first rows; the rows written before
 * the column read null in it.
 */
class SparkReadsEvolvedTableIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void sparkReadsTheAddedColumnAndTheRescuedData() throws Exception {
    String topic = broker.createTopic("evolved-spark", 1);
    var spec = PipelineParser.parse("""
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
        """.formatted(broker.bootstrapServers(), topic, dir, dir), "evolved-spark.yaml", Map.of());
    broker.send(topic, 0, List.of("{\"id\":\"o1\",\"amount\":10}", "{\"id\":\"o2\",\"amount\":\"x\"}"));
    run(spec);
    broker.send(topic, 0, List.of("{\"id\":\"o3\",\"amount\":30,\"tier\":\"gold\",\"meta\":{\"a\":1}}"));
    run(spec);

    Path work = Files.createDirectories(dir.resolve("spark"));
    Path out = work.resolve("rows.jsonl");
    SparkReference.run(Map.of("reads", List.of(Map.of("path", dir.resolve("table").toString(),
        "out", out.toString()))), work);

    assertThat(Files.readString(out.resolveSibling("rows.jsonl.columns"))).isEqualTo("id,amount,_kafka_topic,"
        + "_kafka_partition,_kafka_offset,_kafka_timestamp,_rescued_data,tier,meta");
    List<String> rows = Files.readAllLines(out);
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).startsWith("{\"id\":\"o1\",\"amount\":10,").doesNotContain("tier", "_rescued_data");
    assertThat(rows.get(1)).startsWith("{\"id\":\"o2\",").doesNotContain("\"amount\":", "tier")
        .contains("\"_rescued_data\":\"{\\\"amount\\\":\\\"x\\\"}\"");
    assertThat(rows.get(2)).startsWith("{\"id\":\"o3\",\"amount\":30,")
        .endsWith("\"tier\":\"gold\",\"meta\":\"{\\\"a\\\":1}\"}");
  }

  private static void run(dev.tributary.config.PipelineSpec spec) throws Exception {
    try (PipelineRun run = PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(),
        new ProgressLog(10))) {
      run.run();
    }
  }
}
