package dev.tributary.service.testing;

import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TableRules;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Delta tables laid out as Spark 4 + Delta 4 write them, for tests that need a table another engine
 * made without starting Spark (SparkInteropIT checks the same features against real Spark).
 */
public final class SparkLikeTables {
  private SparkLikeTables() {}

  private static StructField meta(String name, PrimitiveType type, Map<String, Object> metadata) {
    return new StructField(name, type, true, List.of(), metadata);
  }

  /**
   * Turns the empty folder of {@code store} into a table as Spark makes it with row rules: columns
   * seq (an identity GENERATED ALWAYS, 100 by 10), id (string), amount (long, invariant amount &lt;
   * 1000), doubled (generated as amount * 2), then the Kafka columns; the table properties {@code
   * constraints} (e.g. {@code delta.constraints.positive = amount > 0}); the writer features
   * appendOnly, invariants, checkConstraints, generatedColumns and identityColumns.
   */
  public static void withRowRules(ObjectStore store, Map<String, String> constraints)
      throws Exception {
    List<StructField> fields = new ArrayList<>();
    fields.add(
        meta(
            "seq",
            PrimitiveType.LONG,
            Map.of(
                TableRules.IDENTITY_START, 100,
                TableRules.IDENTITY_STEP, 10,
                TableRules.IDENTITY_ALLOW_EXPLICIT_INSERT, false)));
    fields.add(StructField.nullable("id", PrimitiveType.STRING));
    fields.add(
        meta(
            "amount",
            PrimitiveType.LONG,
            Map.of(TableRules.INVARIANTS, "{\"expression\":{\"expression\":\"amount < 1000\"}}")));
    fields.add(
        meta(
            "doubled", PrimitiveType.LONG, Map.of(TableRules.GENERATION_EXPRESSION, "amount * 2")));
    fields.addAll(StatelessProcessor.KAFKA_COLUMNS);
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    table.create(StructType.of(StructField.nullable("x", PrimitiveType.LONG)), List.of(), Map.of());
    Snapshot s = table.snapshot();
    Metadata m = s.state().metadata();
    List<Action> actions =
        List.of(
            new CommitInfo(Map.of("timestamp", 1L, "operation", "CREATE OR REPLACE TABLE")),
            new Protocol(
                1,
                7,
                Set.of(),
                Set.of(
                    "appendOnly",
                    "invariants",
                    "checkConstraints",
                    "generatedColumns",
                    "identityColumns")),
            new Metadata(
                m.id(),
                null,
                null,
                m.format(),
                SchemaJson.toJson(new StructType(fields)),
                List.of(),
                constraints,
                m.createdTime()));
    if (!new DeltaLog(store).tryCommit(s.version() + 1, actions)) {
      throw new IllegalStateException("another writer committed to " + store.location());
    }
  }
}
