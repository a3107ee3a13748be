package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static dev.tributary.table.TestTables.append;
import static dev.tributary.table.TestTables.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MergeTransactionTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  private Map<Long, String> namesById() throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (Object[] r : rows(store, table.snapshot())) {
      assertThat(out.put((Long) r[0], (String) r[1])).as("id %s appears once", r[0]).isNull();
    }
    return out;
  }

  @Test
  void upsertReplacesRowsWithTheSameKeyAndAddsNewOnes() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "pipe", 0, 0, 10);
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 1), List.of("id"))) {
      tx.write(new Object[] {3L, "three", null, "EU"});
      tx.write(new Object[] {42L, "first", null, "US"});
      tx.write(new Object[] {42L, "forty-two", null, "US"});
      CommitResult r = tx.commit(Map.of());
      assertThat(r.committed()).isTrue();
      assertThat(r.filesRemoved()).isEqualTo(1);
    }
    Map<Long, String> names = namesById();
    assertThat(names)
        .hasSize(11)
        .containsEntry(3L, "three")
        .containsEntry(42L, "forty-two")
        .containsEntry(4L, "name-4");
  }

  @Test
  void filesWhoseStatisticsExcludeTheKeysAreNotRewritten() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    append(table, "pipe", 0, 0, 10);
    append(table, "pipe", 1, 100, 110);
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 2), List.of("id"))) {
      tx.write(new Object[] {105L, "changed", null, null});
      CommitResult r = tx.commit(Map.of());
      assertThat(r.filesRemoved()).isEqualTo(1);
    }
    assertThat(namesById()).hasSize(20).containsEntry(105L, "changed").containsEntry(5L, "name-5");
  }

  @Test
  void keyPruningComparesStringsInTheStatisticsUtf8OrderNotUtf16() throws Exception {
    // U+E000 sorts before U+1F600 in UTF-8 (the statistics' order) but after it in UTF-16 units,
    // where the emoji is a surrogate pair starting with 0xD83D.
    String privateUse = "\uE000";
    String emoji = "\uD83D\uDE00";
    table.create(SCHEMA, List.of(), Map.of());
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 0), List.of("name"))) {
      tx.write(new Object[] {1L, privateUse, null, null});
      tx.write(new Object[] {2L, emoji, null, null});
      tx.commit(Map.of());
    }
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 1), List.of("name"))) {
      tx.write(new Object[] {3L, emoji, null, null});
      assertThat(tx.commit(Map.of()).filesRemoved())
          .as("the file holding the key is rewritten")
          .isEqualTo(1);
    }
    assertThat(namesById()).containsExactly(Map.entry(1L, privateUse), Map.entry(3L, emoji));
  }

  @Test
  void keysSpreadOverEveryFilesRangeStillRewriteOnlyTheFileThatHoldsThem() throws Exception {
    // file f holds keys f, f + 10, f + 20, ...: every file's min/max range covers every key, so
    // statistics alone would rewrite the whole table for one key (update mode before the index)
    table.create(SCHEMA, List.of(), Map.of());
    for (int f = 0; f < 10; f++) {
      try (AppendTransaction tx = table.newAppend(new TransactionId("load", f))) {
        for (long id = f; id < 1000; id += 10) {
          tx.write(TestTables.row(id, "EU"));
        }
        tx.commit(Map.of());
      }
    }
    try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 0), List.of("id"))) {
      tx.write(new Object[] {503L, "changed", null, "EU"});
      CommitResult r = tx.commit(Map.of());
      assertThat(r.filesRemoved()).isEqualTo(1);
      assertThat(tx.metrics().copied()).isEqualTo(99);
    }
    assertThat(namesById()).hasSize(1000).containsEntry(503L, "changed");
  }

  @Test
  void replayedTransactionIsSkipped() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    for (int attempt = 0; attempt < 2; attempt++) {
      try (MergeTransaction tx = table.newMerge(new TransactionId("pipe", 0), List.of("id"))) {
        tx.write(new Object[] {1L, "attempt-" + attempt, null, null});
        CommitResult r = tx.commit(Map.of());
        assertThat(r.committed()).isEqualTo(attempt == 0);
      }
    }
    assertThat(namesById()).containsExactly(Map.entry(1L, "attempt-0"));
  }

  @Test
  void unknownKeyColumnIsRefused() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    assertThatThrownBy(() -> table.newMerge(new TransactionId("p", 0), List.of("nope")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("merge key column 'nope' is not a column of table");
  }
}
