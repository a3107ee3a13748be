package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.SparkLikeTables;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} reads an existing Delta sink table (issue 23: what Tributary cannot honour is
 * refused by name at validate, not only at start): a table with row rules the pipeline enforces is
 * shown with them, a rule it cannot compile, a writer feature its sink does not enforce or a
 * variant column (read only) exits 1 naming it, and a store that does not answer is reported as not
 * checked without failing.
 */
class SinkTableValidateTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  private static final String STATELESS =
      """
      pipeline: orders
      source: { kafka: { bootstrap-servers: localhost:9092, topics: [orders] } }
      format: { json: { schema: { id: string, amount: long } } }
      sink: { delta: { path: %s } }
      checkpoint: %s
      """;

  private static final String WINDOWED =
      """
      pipeline: orders
      source: { kafka: { bootstrap-servers: localhost:9092, topics: [orders] } }
      format: { json: { schema: { id: string, amount: long, ts: timestamp } } }
      watermark: { column: ts, delay: 1 minute }
      aggregate:
        window: { column: ts, size: 1 minute }
        group-by: [id]
        measures: { amount: sum(amount) }
      output-mode: append
      sink: { delta: { path: %s } }
      checkpoint: %s
      """;

  private int validate(String yaml, Path table) throws Exception {
    return cli.validate(
        dir.resolve("orders.yaml"), yaml.formatted(table, dir.resolve("checkpoint")));
  }

  private String out() {
    return cli.out();
  }

  private String err() {
    return cli.err();
  }

  private Path sparkTable(Map<String, String> constraints) throws Exception {
    Path path = dir.resolve("spark-made");
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      SparkLikeTables.withRowRules(store, constraints);
    }
    return path;
  }

  @Test
  void aNewTableIsCreatedByTheFirstBatch() throws Exception {
    assertThat(validate(STATELESS, dir.resolve("none"))).as(err()).isZero();
    assertThat(out()).contains("sink table:  none yet: the first batch creates it");
  }

  @Test
  void theRowRulesOfASparkTableAreShownWhenThePipelineHonoursThem() throws Exception {
    Path table = sparkTable(Map.of("delta.constraints.positive", "amount > 0"));
    assertThat(validate(STATELESS, table)).as(err()).isZero();
    assertThat(out())
        .contains("sink table:  version 1, appendable; every row checked against")
        .contains("CHECK constraint positive (amount > 0)")
        .contains("generated doubled = amount * 2")
        .contains("identity seq");
  }

  @Test
  void aRuleThePipelineCannotHonourIsRefusedByName() throws Exception {
    Path table = sparkTable(Map.of("delta.constraints.odd", "no_such_function(amount)"));
    assertThat(validate(STATELESS, table)).isEqualTo(1);
    assertThat(err())
        .contains("Pipeline orders cannot append to the Delta table at")
        .contains("CHECK constraint odd (no_such_function(amount)) cannot be compiled");
    assertThat(out()).doesNotContain("is valid");
  }

  @Test
  void aStatefulPipelineIsRefusedTheTableByFeature() throws Exception {
    Path table = sparkTable(Map.of("delta.constraints.positive", "amount > 0"));
    assertThat(validate(WINDOWED, table)).isEqualTo(1);
    assertThat(err()).contains("Pipeline orders").contains("checkConstraints");
  }

  /**
   * A table as Spark 4 makes it with {@code CREATE TABLE (id STRING, amount BIGINT, v VARIANT, st
   * STRUCT<n: INT, w: VARIANT>)}: the reader-writer feature variantType, a variant at the top level
   * and inside a struct.
   */
  private Path sparkVariantTable() throws Exception {
    Path path = dir.resolve("spark-variant");
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(
          StructType.of(StructField.nullable("x", PrimitiveType.LONG)), List.of(), Map.of());
      Snapshot s = table.snapshot();
      Metadata m = s.state().metadata();
      String schema =
          "{\"type\":\"struct\",\"fields\":["
              + "{\"name\":\"id\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},"
              + "{\"name\":\"amount\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},"
              + "{\"name\":\"v\",\"type\":\"variant\",\"nullable\":true,\"metadata\":{}},"
              + "{\"name\":\"st\",\"type\":{\"type\":\"struct\",\"fields\":["
              + "{\"name\":\"n\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}},"
              + "{\"name\":\"w\",\"type\":\"variant\",\"nullable\":true,\"metadata\":{}}]},"
              + "\"nullable\":true,\"metadata\":{}}]}";
      List<Action> actions =
          List.of(
              new CommitInfo(Map.of("timestamp", 1L, "operation", "CREATE OR REPLACE TABLE")),
              new Protocol(
                  3, 7, Set.of("variantType"), Set.of("variantType", "appendOnly", "invariants")),
              new Metadata(
                  m.id(), null, null, m.format(), schema, List.of(), Map.of(), m.createdTime()));
      assertThat(new DeltaLog(store).tryCommit(s.version() + 1, actions)).isTrue();
    }
    return path;
  }

  @Test
  void aTableWithVariantColumnsIsRefusedToWritersByNameAtValidate() throws Exception {
    Path table = sparkVariantTable();
    for (String yaml : List.of(STATELESS, WINDOWED)) {
      assertThat(validate(yaml, table)).as(out()).isEqualTo(1);
      assertThat(err())
          .contains("Pipeline orders")
          .contains("variant columns: read only (v, st)")
          .contains(table.toString());
      assertThat(out()).doesNotContain("is valid");
    }
  }

  @Test
  void aStoreThatDoesNotAnswerIsNotCheckedAndDoesNotFailValidate() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0)) {
      port = closed.getLocalPort(); // nothing listens there once closed
    }
    String yaml =
        STATELESS
            .replace("sink: { delta: { path: %s } }", "sink: { delta: { path: \"%s\" } }")
            .replace(
                "checkpoint: %s",
                "checkpoint: %s\nstorage: { s3: { endpoint: \"http://127.0.0.1:"
                    + port
                    + "\", region: us-east-1, path-style: true } }");
    int exit =
        cli.validate(
            dir.resolve("orders.yaml"),
            yaml.formatted("s3://lake/orders", dir.resolve("checkpoint")));
    assertThat(exit).as(err()).isZero();
    assertThat(out()).contains("sink table:  not checked (");
  }
}
