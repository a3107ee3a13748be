package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

/**
 * For {@link SparkInteropIT} (issue 22): the differential test of {@code write: upsert} against
 * Spark 4 + Delta 4's {@code MERGE INTO}. One change stream — keyed changes with a {@code seq}
 * column, a tenth of them older than their key's latest (late), a tenth deletes ({@code op = 'd'}),
 * some deleted keys changed again by a late change in a later batch — is applied twice:
 *
 * <ul>
 *   <li>by Spark, batch by batch, as the seed's {@code foreachBatch} would: the batch's changes
 *       collapsed to the highest {@code (seq, offset)} per key, then one {@code MERGE} that deletes
 *       or updates a row when the change is not older than it and inserts a key the table lacks;
 *   <li>by a Tributary pipeline ({@code write: upsert, sequence-by: seq, delete-when: op = 'd'})
 *       reading the same changes from Kafka in batches of the same offsets (one partition, {@code
 *       max-offsets-per-trigger}).
 * </ul>
 *
 * The two tables must hold the same rows; Spark reads ours and its {@code DESCRIBE HISTORY} shows
 * each of our upsert commits as a {@code MERGE}. The same changes kept as a history ({@code
 * history: scd2}) are read by Spark as by Kernel.
 */
final class SparkMergeTables {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int KEYS = 60;
  private static final int CHANGES = 600;
  private static final int BATCH = 100;
  private static final String SPARK_TABLE = "merge-spark";
  private static final String OUR_TABLE = "merge-ours";
  private static final String HISTORY_TABLE = "merge-history";

  private final Path dir;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final List<String> changes = new ArrayList<>();
  private int ourCommits;

  SparkMergeTables(Path dir) throws IOException {
    this.dir = dir;
    generate(new Random(22));
  }

  /**
   * Changes {@code {"id", "name", "seq", "op"}}: mostly newer than the key's latest, a tenth late,
   * a tenth deletes; sequence values repeat across keys, never within a key.
   */
  private void generate(Random random) {
    long[] latest = new long[KEYS];
    List<TreeSet<Long>> used = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      used.add(new TreeSet<>());
    }
    for (int i = 0; i < CHANGES; i++) {
      int id = random.nextInt(KEYS);
      boolean late = latest[id] > 20 && random.nextInt(10) == 0;
      long seq;
      do {
        seq = late ? 1 + random.nextInt((int) latest[id]) : latest[id] + 1 + random.nextInt(10);
      } while (!used.get(id).add(seq));
      latest[id] = Math.max(latest[id], seq);
      String op = random.nextInt(10) == 0 ? "d" : "u";
      changes.add(
          "{\"id\":%d,\"name\":\"v%d\",\"seq\":%d,\"op\":\"%s\"}".formatted(id, i, seq, op));
    }
  }

  /**
   * Spark's table: created, then one {@code MERGE} per batch of {@link #BATCH} changes, each read
   * from a JSON file that adds the change's Kafka offset.
   */
  List<Map<String, Object>> jobTables() throws IOException {
    Path batches = Files.createDirectories(dir.resolve("merge-batches"));
    List<String> statements = new ArrayList<>();
    statements.add(
        "CREATE TABLE delta.`{path}` (id BIGINT, name STRING, seq BIGINT, op STRING) USING delta");
    for (int from = 0; from < changes.size(); from += BATCH) {
      List<String> lines = new ArrayList<>();
      for (int offset = from; offset < Math.min(from + BATCH, changes.size()); offset++) {
        String change = changes.get(offset);
        lines.add(change.substring(0, change.length() - 1) + ",\"off\":" + offset + "}");
      }
      Path file = batches.resolve("batch-" + from / BATCH + ".json");
      Files.write(file, lines);
      statements.add(merge(file));
    }
    return List.of(Map.of("path", dir.resolve(SPARK_TABLE).toString(), "statements", statements));
  }

  private static String merge(Path batch) {
    return """
        MERGE INTO delta.`{path}` t
        USING (
          SELECT id, name, seq, op FROM (
            SELECT *, row_number() OVER (PARTITION BY id ORDER BY seq DESC, off DESC) AS rn
            FROM json.`%s`)
          WHERE rn = 1) s
        ON t.id = s.id
        WHEN MATCHED AND s.seq >= t.seq AND s.op = 'd' THEN DELETE
        WHEN MATCHED AND s.seq >= t.seq THEN UPDATE SET *
        WHEN NOT MATCHED AND s.op <> 'd' THEN INSERT *
        """
        .formatted(batch);
  }

  /** Runs our pipeline over the same changes; returns what Spark should read back of our table. */
  List<Map<String, Object>> upsertAndListReads() throws Exception {
    String topic = broker.createTopic("merge-changes", 1);
    broker.send(topic, 0, changes);
    PipelineSpec spec =
        PipelineParser.parse(
            """
            pipeline: merge-differential
            source:
              kafka:
                bootstrap-servers: %s
                topics: [%s]
                max-offsets-per-trigger: %d
            format:
              json:
                schema: { id: long, name: string, seq: long, op: string }
            sink:
              delta:
                path: %s/%s
                write: upsert
                key: [id]
                sequence-by: seq
                delete-when: "op = 'd'"
            checkpoint: %s/merge-checkpoint
            """
                .formatted(broker.bootstrapServers(), topic, BATCH, dir, OUR_TABLE, dir),
            "merge-differential.yaml",
            Map.of());
    ourCommits = run(spec);
    // the same changes as a history (scd2 needs a timestamp: seq as seconds)
    run(
        PipelineParser.parse(
            """
            pipeline: merge-history
            source:
              kafka: { bootstrap-servers: %s, topics: [%s], max-offsets-per-trigger: %d }
            format:
              json:
                schema: { id: long, name: string, seq: long, op: string }
            transform:
              - derive: { at: "CAST(seq AS timestamp)" }
            sink:
              delta:
                path: %s/%s
                write: upsert
                key: [id]
                sequence-by: at
                delete-when: "op = 'd'"
                history: scd2
            checkpoint: %s/merge-history-checkpoint
            """
                .formatted(broker.bootstrapServers(), topic, BATCH, dir, HISTORY_TABLE, dir),
            "merge-history.yaml",
            Map.of()));
    return List.of(
        Map.of(
            "path",
            dir.resolve(OUR_TABLE).toString(),
            "out",
            dir.resolve("merge-ours.spark.json").toString(),
            "history",
            dir.resolve("merge-ours.history.json").toString()),
        Map.of(
            "path",
            dir.resolve(HISTORY_TABLE).toString(),
            "out",
            dir.resolve("merge-history.spark.json").toString()));
  }

  /** Runs a pipeline available-now; returns its number of batches. */
  private static int run(PipelineSpec spec) throws Exception {
    ProgressLog progress = new ProgressLog(100);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    List<BatchProgress> batches = progress.last(100);
    assertThat(batches).as("batches of the same offsets as Spark's").hasSize(CHANGES / BATCH);
    return batches.size();
  }

  /**
   * Spark reads our history table (copy-on-write rewrites of closed versions) as Kernel does: the
   * same versions, with the validity columns.
   */
  void checkHistory() throws Exception {
    TreeSet<String> spark = new TreeSet<>();
    for (String line : Files.readAllLines(dir.resolve("merge-history.spark.json"))) {
      JsonNode r = JSON.readTree(line);
      spark.add(
          r.get("id").asLong()
              + " "
              + r.get("name").asText()
              + " "
              + Instant.parse(r.get("_valid_from").asText()).getEpochSecond()
              + " "
              + (r.hasNonNull("_valid_to")
                  ? Instant.parse(r.get("_valid_to").asText()).getEpochSecond()
                  : "-")
              + " "
              + r.get("_is_current").asBoolean());
    }
    TreeSet<String> kernel = new TreeSet<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve(HISTORY_TABLE).toString(), null)) {
      KernelReader reader = new KernelReader(store);
      List<String> columns = reader.columnNames();
      int from = columns.indexOf("_valid_from");
      for (Object[] r : reader.rows()) {
        Instant to = (Instant) r[from + 1];
        kernel.add(
            r[0]
                + " "
                + r[1]
                + " "
                + ((Instant) r[from]).getEpochSecond()
                + " "
                + (to == null ? "-" : to.getEpochSecond())
                + " "
                + r[from + 2]);
      }
    }
    assertThat(spark)
        .as("versions (more than the changes that were not deletes)")
        .hasSizeGreaterThan(CHANGES / 2);
    assertThat(spark).isEqualTo(kernel);
  }

  /** Spark's MERGE table equals ours, read by Spark, by us through Kernel, with the same rows. */
  void check() throws Exception {
    TreeSet<String> spark = sparkRows(dir.resolve(SPARK_TABLE + ".spark.json"));
    TreeSet<String> oursBySpark = sparkRows(dir.resolve("merge-ours.spark.json"));
    assertThat(spark).as("keys left by Spark's MERGE").hasSizeGreaterThan(KEYS / 2);
    assertThat(oursBySpark).isEqualTo(spark);
    try (ObjectStore store = ObjectStores.open(dir.resolve(OUR_TABLE).toString(), null)) {
      TreeSet<String> kernel = new TreeSet<>();
      for (Object[] r : new KernelReader(store).rows()) {
        kernel.add(r[0] + " " + r[1] + " " + r[2] + " " + r[3]);
      }
      assertThat(kernel).isEqualTo(spark);
    }
    List<String> operations = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("merge-ours.history.json"))) {
      operations.add(JSON.readTree(line).get("operation").asText());
    }
    assertThat(operations).as("our commits in Spark's DESCRIBE HISTORY").contains("MERGE");
    assertThat(operations.stream().filter("MERGE"::equals).count()).isEqualTo(ourCommits);
  }

  /** Spark's JSON lines as "id name seq op". */
  private static TreeSet<String> sparkRows(Path file) throws IOException {
    TreeSet<String> rows = new TreeSet<>();
    for (String line : Files.readAllLines(file)) {
      JsonNode r = JSON.readTree(line);
      rows.add(
          r.get("id").asLong()
              + " "
              + r.get("name").asText()
              + " "
              + r.get("seq").asLong()
              + " "
              + r.get("op").asText());
    }
    return rows;
  }
}
