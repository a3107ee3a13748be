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
import dev.tributary.table.interop.KernelReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * For {@link SparkInteropIT} (one Spark start for every Spark read): Spark 4 + Delta 4 read a table
 * that {@code write: upsert} with {@code merge-strategy: deletion-vectors} wrote in four runs
 * (inserts; updates and deletes; tombstones and updates; a deleted key back), its files carrying
 * deletion vectors; the rows Spark reads are the last value of each key, and {@code DESCRIBE
 * HISTORY} shows the merges as MERGE.
 */
final class UpsertedTableForSpark {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Path dir;
  private final Map<Long, String> expected = new TreeMap<>();
  private Path out;
  private Path history;
  private long version;

  UpsertedTableForSpark(Path dir) {
    this.dir = dir;
  }

  /** Writes the table; returns the Spark read of it, with its history. */
  Map<String, String> prepare() throws Exception {
    String topic = broker.createTopic("upsert-dv-spark", 2);
    PipelineSpec spec =
        PipelineParser.parse(
            """
        pipeline: upsert-dv-spark
        source:
          kafka: { bootstrap-servers: %s, topics: [%s] }
        format:
          json:
            schema: { id: long, name: string, version: long, op: string }
        sink:
          delta:
            path: %s/table
            write: upsert
            key: [id]
            sequence-by: version
            delete-when: "op = 'd'"
            merge-strategy: deletion-vectors
        checkpoint: %s/checkpoint
        """
                .formatted(broker.bootstrapServers(), topic, dir, dir),
            "upsert-dv-spark.yaml",
            Map.of());
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int round = 0; round < 4; round++) {
        for (long id = 0; id < 20; id++) {
          send(producer, topic, round, id);
        }
        producer.flush();
        run(spec);
      }
    }
    Path table = dir.resolve("table");
    try (var store = ObjectStores.open(table.toString(), null)) {
      var snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      version = snapshot.version();
      assertThat(snapshot.files())
          .as("the merges left deletion vectors for Spark to apply")
          .anyMatch(f -> f.deletionVector() != null);
      assertThat(snapshot.state().protocol().readerFeatures()).contains("deletionVectors");
      // Delta Kernel agrees before Spark is asked
      var kernel = new KernelReader(store);
      int name = kernel.columnNames().indexOf("name");
      int seq = kernel.columnNames().indexOf("version");
      Map<Long, String> read = new TreeMap<>();
      for (Object[] r : kernel.rows()) {
        assertThat(read.put((Long) r[0], r[name] + "@" + r[seq])).isNull();
      }
      assertThat(read).isEqualTo(expected);
    }
    Path work = Files.createDirectories(dir.resolve("spark"));
    out = work.resolve("rows.jsonl");
    history = work.resolve("history.jsonl");
    return Map.of("path", table.toString(), "out", out.toString(), "history", history.toString());
  }

  /**
   * One change of key {@code id} in {@code round}: round 0 inserts every key; round 1 updates every
   * third and deletes every fifth (delete-when); round 2 sends tombstones for every seventh and
   * updates every fourth; round 3 brings key 1 back and updates key 3.
   */
  private void send(KafkaProducer<byte[], byte[]> producer, String topic, int round, long id)
      throws Exception {
    String value;
    if (round == 0) {
      value = change(id, "first", 1, "c");
    } else if (round == 1 && id % 5 == 1) {
      value = change(id, "gone", 2, "d");
    } else if (round == 1 && id % 3 == 0) {
      value = change(id, "second", 2, "u");
    } else if (round == 2 && id % 7 == 2) {
      value = null;
    } else if (round == 2 && id % 4 == 0) {
      value = change(id, "third", 3, "u");
    } else if (round == 3 && (id == 1 || id == 3)) {
      value = change(id, "back", 4, "u");
    } else {
      return;
    }
    if (value == null || value.endsWith("\"d\"}")) {
      expected.remove(id);
    } else {
      JsonNode v = JSON.readTree(value);
      expected.put(id, v.get("name").asText() + "@" + v.get("version").asLong());
    }
    producer
        .send(
            new ProducerRecord<>(
                topic,
                (int) (id % 2),
                Long.toString(id).getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8)))
        .get();
  }

  private static String change(long id, String name, long version, String op) {
    return "{\"id\":%d,\"name\":\"%s\",\"version\":%d,\"op\":\"%s\"}"
        .formatted(id, name, version, op);
  }

  /** What Spark read: the last value per key, and the merges in the table's history. */
  void check() throws Exception {
    Map<Long, String> read = new TreeMap<>();
    for (String line : Files.readAllLines(out)) {
      JsonNode r = JSON.readTree(line);
      assertThat(
              read.put(
                  r.get("id").asLong(), r.get("name").asText() + "@" + r.get("version").asLong()))
          .as("id %s once", r.get("id"))
          .isNull();
    }
    assertThat(read).isEqualTo(expected).hasSize(15);
    List<String> operations = new ArrayList<>();
    for (String line : Files.readAllLines(history)) {
      JsonNode h = JSON.readTree(line);
      operations.add(h.get("version").asLong() + " " + h.get("operation").asText());
    }
    assertThat(operations).hasSize((int) version + 1).startsWith("0 CREATE TABLE");
    assertThat(operations.subList(1, operations.size())).allMatch(o -> o.endsWith(" MERGE"));
  }

  private static void run(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(10))) {
      run.run();
    }
  }
}
