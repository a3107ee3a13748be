package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.join.DimensionTables;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary serve} (a child JVM) runs a pipeline whose source is a Delta table ({@code
 * source.delta}, processing-time trigger, one file per batch, a left join with a dimension table)
 * while the table receives commits: the REST API shows its batches and, in each progress record,
 * the source lag ({@code versionsBehind}, {@code filesBehind}, {@code bytesBehind}), and the {@code
 * sourceTables} health component probes every table a pipeline reads: the source and the dimension
 * are UP; a source path without a table, and an S3 table read with a wrong secret key, are DOWN
 * with a reason that names the table and never the secret.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServeDeltaSourceIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "delta-serve-token-" + UUID.randomUUID();
  private static final String AUTH = "Bearer " + TOKEN;
  private static final String WRONG_SECRET = "wrong-secret-" + UUID.randomUUID();
  private static final Duration SLOW = Duration.ofMinutes(3);
  private static final StructType BRONZE =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("customer_id", PrimitiveType.STRING));

  @TempDir static Path dir;
  private static S3TestServer s3;
  private static String bucket;
  private static Process serve;
  private static Path log;
  private static Http http;
  private static long commits;

  @BeforeAll
  static void startServe() throws Exception {
    s3 = S3TestServer.shared();
    bucket = s3.createBucket();
    try (ObjectStore store = ObjectStores.open(dir.resolve("bronze").toString(), null)) {
      DeltaTable.open(store, TableOptions.defaults()).create(BRONZE, List.of(), Map.of());
    }
    for (int c = 0; c < 3; c++) {
      appendToBronze();
    }
    DimensionTables.create(
        dir.resolve("customers"),
        List.of(
            DimensionTables.customer("c0", "s0", "EU", 0),
            DimensionTables.customer("c1", "s1", "EU", 1),
            DimensionTables.customer("c2", "s2", "US", 2)));

    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(
        pipelines.resolve("silver.yaml"),
        """
        pipeline: silver
        source:
          delta: { path: %1$s/bronze, max-files-per-trigger: 1 }
        join:
          - delta: { path: %1$s/customers }
            on: [customer_id]
            type: left
            columns: [segment]
        sink:
          delta: { path: %1$s/silver }
        checkpoint: %1$s/chk/silver
        trigger: { processing-time: 200ms }
        """
            .formatted(dir));
    Files.writeString(
        pipelines.resolve("orphan.yaml"),
        """
        pipeline: orphan
        source:
          delta: { path: %1$s/no-such-table }
        sink:
          delta: { path: %1$s/orphan }
        checkpoint: %1$s/chk/orphan
        trigger: { processing-time: 1s }
        """
            .formatted(dir));
    Files.writeString(
        pipelines.resolve("locked.yaml"),
        """
        pipeline: locked
        source:
          delta:
            path: s3://%2$s/bronze
            storage:
              s3: { endpoint: "%3$s", region: us-east-1, path-style: true,
                    access-key: "${S3_ACCESS_KEY}", secret-key: "${WRONG_SECRET}" }
        sink:
          delta: { path: %1$s/locked }
        checkpoint: %1$s/chk/locked
        trigger: { processing-time: 1s }
        """
            .formatted(dir, bucket, s3.endpoint()));

    int port = ChildJvm.freePort();
    log = dir.resolve("serve.log");
    serve =
        ChildJvm.start(
            List.of("-Xmx384m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of(
                "serve", "--pipelines-dir", pipelines.toString(), "--port", Integer.toString(port)),
            log,
            dir,
            Map.of(
                "S3_ACCESS_KEY",
                S3TestServer.ACCESS_KEY,
                "WRONG_SECRET",
                WRONG_SECRET,
                "TRIBUTARY_API_TOKEN",
                TOKEN));
    http = new Http("http://127.0.0.1:" + port);
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .failFast("serve exited:\n" + tail(), () -> !serve.isAlive())
        .until(() -> http.get("/api/pipelines", AUTH).statusCode() == 200);
  }

  @AfterAll
  static void stopServe() throws Exception {
    if (serve != null && serve.isAlive()) {
      serve.destroyForcibly().waitFor();
    }
  }

  /** One commit of ten rows; customer c3 is not in the dimension. */
  private static void appendToBronze() throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("bronze").toString(), null)) {
      DeltaTable bronze = DeltaTable.open(store, TableOptions.defaults());
      try (AppendTransaction tx = bronze.newAppend(new TransactionId("bronze-writer", commits))) {
        for (long id = commits * 10; id < commits * 10 + 10; id++) {
          tx.write(new Object[] {id, "c" + id % 4});
        }
        tx.commit(Map.of());
      }
      commits++;
    }
  }

  private static String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static JsonNode pipelineJson(String id) throws Exception {
    HttpResponse<String> response = http.get("/api/pipelines/" + id + "?last=100", AUTH);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static long rowsOut(String id) throws Exception {
    long total = 0;
    for (JsonNode p : pipelineJson(id).get("progress")) {
      total += p.get("outputRows").asLong();
    }
    return total;
  }

  private static JsonNode batch(JsonNode progress, long batchId) {
    for (JsonNode p : progress) {
      if (p.get("batchId").asLong() == batchId) {
        return p;
      }
    }
    throw new AssertionError("no progress record of batch " + batchId + " in " + progress);
  }

  @Test
  @Order(1)
  void theRestApiShowsTheDeltaSourcesBatchesAndItsLagWhileTheTableGrows() throws Exception {
    await()
        .atMost(SLOW)
        .untilAsserted(
            () -> assertThat(rowsOut("silver")).as(ServeDeltaSourceIT::tail).isEqualTo(30));
    JsonNode first = batch(pipelineJson("silver").get("progress"), 0);
    // Batch 0 read one of the three files of the snapshot it started from: two files behind.
    assertThat(first.get("inputRows").asLong()).isEqualTo(10);
    JsonNode lag = first.get("sourceLag");
    assertThat(lag.get("versionsBehind").asLong()).as(first.toString()).isEqualTo(1);
    assertThat(lag.get("filesBehind").asLong()).isEqualTo(2);
    assertThat(lag.get("bytesBehind").asLong()).isPositive();

    // The table grows while the pipeline runs: it catches up, then is behind by nothing.
    appendToBronze();
    appendToBronze();
    await().atMost(SLOW).untilAsserted(() -> assertThat(rowsOut("silver")).isEqualTo(50));
    JsonNode details = pipelineJson("silver");
    assertThat(details.get("status").get("state").asText()).isEqualTo("RUNNING");
    JsonNode progress = details.get("progress");
    JsonNode last =
        progress.get(0).get("batchId").asLong()
                > progress.get(progress.size() - 1).get("batchId").asLong()
            ? progress.get(0)
            : progress.get(progress.size() - 1);
    assertThat(last.get("sourceLag").get("versionsBehind").asLong()).as(last.toString()).isZero();
    assertThat(last.get("sourceLag").get("filesBehind").asLong()).isZero();
    assertThat(last.get("sourceLag").get("bytesBehind").asLong()).isZero();
    assertThat(last.get("partitions").get(0).get("topic").asText())
        .isEqualTo(dir.resolve("bronze").toString());

    JsonNode list = JSON.readTree(http.get("/api/pipelines", AUTH).body());
    JsonNode silver = null;
    for (JsonNode p : list) {
      silver = p.get("id").asText().equals("silver") ? p : silver;
    }
    assertThat(silver).isNotNull();
    assertThat(silver.get("lag").asLong()).isZero();
    assertThat(silver.get("lastBatch").get("sourceLag").has("bytesBehind")).isTrue();
    await()
        .atMost(SLOW)
        .untilAsserted(
            () ->
                assertThat(http.get("/actuator/prometheus").body())
                    .contains(
                        "tributary_source_lag{application=\"tributary\",measure=\"bytesBehind\",pipeline=\"silver\"} 0.0"));

    // Every bronze row once in silver, joined (c3 has no dimension row).
    Map<Long, Object> segments = new HashMap<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("silver").toString(), null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      for (DataFile f : snapshot.files()) {
        try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
          while (it.hasNext()) {
            Object[] row = it.next();
            assertThat(segments.put((Long) row[0], row[2])).as("row %s once", row[0]).isNull();
          }
        }
      }
    }
    assertThat(segments).hasSize(50);
    segments.forEach(
        (id, segment) -> assertThat(segment).isEqualTo(id % 4 == 3 ? null : "s" + id % 4));
  }

  @Test
  @Order(2)
  void healthProbesEveryTableAPipelineReads() throws Exception {
    String missing = dir.resolve("no-such-table").toString();
    String locked = "s3://" + bucket + "/bronze";
    HttpResponse<String> health = http.get("/actuator/health/sourceTables", AUTH);
    assertThat(health.body()).doesNotContain(WRONG_SECRET).doesNotContain(TOKEN);
    assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
    JsonNode details = JSON.readTree(health.body()).get("details");
    assertThat(details.get(dir.resolve("bronze").toString()).asText()).isEqualTo("UP");
    assertThat(details.get(dir.resolve("customers").toString()).asText()).isEqualTo("UP");
    assertThat(details.get(missing).asText())
        .startsWith(
            "DOWN: no Delta table at " + missing + ": its _delta_log/ is missing or empty.");
    assertThat(details.get(locked).asText())
        .as(health.body())
        .startsWith("DOWN: the Delta log of " + locked + " cannot be read: ");

    HttpResponse<String> overall = http.get("/actuator/health", AUTH);
    assertThat(overall.body()).doesNotContain(WRONG_SECRET);
    JsonNode components = JSON.readTree(overall.body()).get("components");
    assertThat(components.get("sourceTables").get("status").asText()).isEqualTo("DOWN");
    // The sinks and checkpoints are all local and writable: only the read tables are down.
    assertThat(components.get("storage").get("status").asText()).isEqualTo("UP");
    assertThat(Files.readString(log)).doesNotContain(WRONG_SECRET);
  }
}
