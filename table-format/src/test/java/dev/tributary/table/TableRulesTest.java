package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The row rules of tables other engines made (CHECK constraints, invariants, generated and identity
 * columns) as {@link TableRules} reads them, and the appends that declare them: refused unless
 * enforced, the identity high-water mark moved in the commit's metaData action, a stale mark or
 * changed rules refused before anything is committed.
 */
class TableRulesTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  /** As Spark 4 / Delta 4 writes them (numbers as JSON numbers, the invariant as JSON text). */
  static final StructType SPARK_SCHEMA =
      StructType.of(
          new StructField(
              "id",
              PrimitiveType.LONG,
              false,
              List.of(),
              Map.of(
                  TableRules.IDENTITY_START, 100,
                  TableRules.IDENTITY_STEP, 10,
                  TableRules.IDENTITY_ALLOW_EXPLICIT_INSERT, false)),
          new StructField(
              "amount",
              PrimitiveType.LONG,
              true,
              List.of(),
              Map.of(TableRules.INVARIANTS, "{\"expression\":{\"expression\":\"amount < 1000\"}}")),
          new StructField(
              "doubled",
              PrimitiveType.LONG,
              true,
              List.of(),
              Map.of(TableRules.GENERATION_EXPRESSION, "amount * 2")));

  private void makeLikeSpark(Map<String, String> properties) throws IOException {
    table.create(StructType.of(StructField.nullable("x", PrimitiveType.LONG)), List.of(), Map.of());
    Snapshot s = table.snapshot();
    Metadata m = s.state().metadata();
    List<Action> actions =
        List.of(
            new CommitInfo(Map.of("timestamp", clock.millis(), "operation", "CREATE TABLE")),
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
                SchemaJson.toJson(SPARK_SCHEMA),
                List.of(),
                properties,
                m.createdTime()));
    assertThat(new DeltaLog(store).tryCommit(s.version() + 1, actions)).isTrue();
  }

  @Test
  void constraintsInvariantsGeneratedAndIdentityColumnsAreReadFromTheLog() throws IOException {
    makeLikeSpark(Map.of("delta.constraints.positive", "amount > 0", "delta.other", "x"));
    TableRules rules = TableRules.of(table.snapshot());
    assertThat(rules.checks())
        .containsExactly(
            new TableRules.Check("CHECK constraint", "positive", "amount > 0"),
            new TableRules.Check("invariant", "amount", "amount < 1000"));
    assertThat(rules.checks().get(0).describe())
        .isEqualTo("CHECK constraint positive (amount > 0)");
    assertThat(rules.generated())
        .containsExactly(new TableRules.Generated("doubled", "amount * 2"));
    assertThat(rules.identities())
        .containsExactly(new TableRules.Identity("id", 100, 10, null, false));
    assertThat(rules.identity("id").next()).isEqualTo(100);
    assertThat(new TableRules.Identity("id", 100, -10, 70L, false).next()).isEqualTo(60);
    assertThat(TableRules.of(TestTables.SCHEMA, Map.of()).isEmpty()).isTrue();
  }

  @Test
  void aMalformedInvariantIsRefusedNamingTheColumn() {
    StructType schema =
        StructType.of(
            new StructField(
                "a", PrimitiveType.LONG, true, List.of(), Map.of(TableRules.INVARIANTS, "{}")));
    assertThatThrownBy(() -> TableRules.of(schema, Map.of()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("invariant of column a");
  }

  @Test
  void anAppendIsRefusedUnlessItEnforcesTheRulesAndItsCommitMovesTheIdentityMark()
      throws IOException {
    makeLikeSpark(Map.of("delta.constraints.positive", "amount > 0"));
    assertThatThrownBy(table::checkAppendable)
        .isInstanceOf(TableException.class)
        .hasMessageContaining("checkConstraints")
        .hasMessageContaining("generatedColumns")
        .hasMessageContaining("identityColumns")
        .hasMessageContaining("invariants");
    table.checkAppendable(ProtocolSupport.ROW_RULE_FEATURES);

    // a writer that does not enforce the rules is refused at commit too
    AppendTransaction blind = table.newAppend(new TransactionId("blind", 0));
    blind.write(new Object[] {1L, 1L, 2L});
    assertThatThrownBy(() -> blind.commit(Map.of()))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("checkConstraints");

    TableRules rules = TableRules.of(table.snapshot());
    long before = table.snapshot().version();
    try (AppendTransaction tx = table.newAppend(new TransactionId("p", 0))) {
      tx.enforce(rules);
      tx.write(new Object[] {100L, 1L, 2L});
      tx.write(new Object[] {110L, 2L, 4L});
      tx.moveIdentity(new AppendTransaction.IdentityMark("id", null, 110));
      assertThat(tx.commit(Map.of()).tableVersion()).isEqualTo(before + 1);
    }
    Snapshot after = table.snapshot();
    assertThat(TableRules.of(after).identity("id").highWaterMark()).isEqualTo(110L);
    assertThat(TableRules.of(after).sameRulesAs(rules)).isTrue();
    // the rest of the column metadata is kept
    assertThat(after.schema().field("id").orElseThrow().metadata())
        .containsEntry(TableRules.IDENTITY_START, 100)
        .containsEntry(TableRules.IDENTITY_HIGH_WATER_MARK, 110);
    assertThat(after.schema().field("doubled").orElseThrow().metadata())
        .containsKey(TableRules.GENERATION_EXPRESSION);
    assertThat(after.fileCount()).isEqualTo(1);
    assertThat(rules.identity("id").next()).isEqualTo(100);
    assertThat(TableRules.of(after).identity("id").next()).isEqualTo(120);
  }

  @Test
  void valuesAssignedAfterAStaleMarkAreAConflictAndNothingIsCommitted() throws IOException {
    makeLikeSpark(Map.of());
    TableRules rules = TableRules.of(table.snapshot());
    try (AppendTransaction tx = table.newAppend(new TransactionId("p", 0))) {
      tx.enforce(rules);
      tx.write(new Object[] {100L, 1L, 2L});
      tx.moveIdentity(new AppendTransaction.IdentityMark("id", null, 100));
      tx.commit(Map.of());
    }
    long version = table.snapshot().version();
    // a second batch whose values were assigned on the state before the first one's commit
    try (AppendTransaction tx = table.newAppend(new TransactionId("p", 1))) {
      tx.enforce(rules);
      tx.write(new Object[] {100L, 1L, 2L});
      tx.moveIdentity(new AppendTransaction.IdentityMark("id", null, 100));
      assertThatThrownBy(() -> tx.commit(Map.of()))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("identity column id")
          .hasMessageContaining("high-water mark 100");
    }
    assertThat(table.snapshot().version()).isEqualTo(version);
  }

  @Test
  void rowsCheckedAgainstRulesTheTableNoLongerHasAreNotCommitted() throws IOException {
    makeLikeSpark(Map.of());
    TableRules old = TableRules.of(table.snapshot());
    Snapshot s = table.snapshot();
    Metadata m = s.state().metadata();
    Map<String, String> added = new LinkedHashMap<>(m.configuration());
    added.put("delta.constraints.small", "amount < 10");
    List<Action> actions =
        List.of(
            new CommitInfo(Map.of("timestamp", clock.millis(), "operation", "ADD CONSTRAINT")),
            new Metadata(
                m.id(),
                null,
                null,
                m.format(),
                m.schemaString(),
                List.of(),
                added,
                m.createdTime()));
    assertThat(new DeltaLog(store).tryCommit(s.version() + 1, actions)).isTrue();
    try (AppendTransaction tx = table.newAppend(new TransactionId("p", 0))) {
      tx.enforce(old);
      tx.write(new Object[] {100L, 50L, 100L});
      assertThatThrownBy(() -> tx.commit(Map.of()))
          .isInstanceOf(TableException.class)
          .hasMessageContaining("changed")
          .hasMessageContaining("restart the pipeline");
    }
    assertThat(table.snapshot().fileCount()).isZero();
  }
}
