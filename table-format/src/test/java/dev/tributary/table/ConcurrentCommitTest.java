package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.SetTransaction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ConcurrentCommitTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore store = new InMemoryObjectStore(clock);

  @Test
  void concurrentWritersWithDistinctTransactionsAllCommitExactlyOnce() throws Exception {
    DeltaTable.open(store, TestTables.fastOptions(clock)).create(SCHEMA, List.of(), Map.of());
    int writers = 6;
    int batches = 8;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<CommitResult>>> futures = new ArrayList<>();
    List<DeltaTable> handles = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String appId = "writer-" + w;
      DeltaTable handle =
          DeltaTable.open(store, TestTables.fastOptions(clock).withLogCheckpointInterval(7));
      handles.add(handle);
      futures.add(
          pool.submit(
              () -> {
                start.await();
                List<CommitResult> results = new ArrayList<>();
                for (int b = 0; b < batches; b++) {
                  results.add(TestTables.append(handle, appId, b, b * 10L, b * 10L + 3));
                }
                return results;
              }));
    }
    start.countDown();
    List<Long> versions = new ArrayList<>();
    for (Future<List<CommitResult>> f : futures) {
      for (CommitResult r : f.get()) {
        assertThat(r.committed()).isTrue();
        versions.add(r.tableVersion());
      }
    }
    pool.shutdown();

    DeltaLog log = new DeltaLog(store);
    assertThat(versions).doesNotHaveDuplicates().hasSize(writers * batches);
    assertThat(log.commitsAfter(-1))
        .hasSize(writers * batches + 1)
        .isEqualTo(LongStream.rangeClosed(0, writers * batches).boxed().toList());
    Map<String, Integer> txnCount = new HashMap<>();
    for (long v = 1; v <= writers * batches; v++) {
      for (Action a : log.readCommit(v)) {
        if (a instanceof SetTransaction t) {
          txnCount.merge(t.appId() + "/" + t.version(), 1, Integer::sum);
        }
      }
    }
    assertThat(txnCount)
        .hasSize(writers * batches)
        .allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
    Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    assertThat(snapshot.fileCount()).isEqualTo(writers * batches);
    assertThat(TestTables.rows(store, snapshot)).hasSize(writers * batches * 3);
    long lostRaces = handles.stream().mapToLong(h -> h.counters().lostRaces()).sum();
    long retries = handles.stream().mapToLong(h -> h.counters().retries()).sum();
    assertThat(retries).isEqualTo(lostRaces);
  }

  @Test
  void sameTransactionRacingFromSeveralWritersCommitsOnce() throws Exception {
    DeltaTable.open(store, TestTables.fastOptions(clock)).create(SCHEMA, List.of(), Map.of());
    int writers = 6;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<CommitResult>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      DeltaTable handle = DeltaTable.open(store, TestTables.fastOptions(clock));
      // Each writer reads the table before anyone commits, so none of them can skip up front.
      AppendTransaction tx = handle.newAppend(new TransactionId("pipe", 42));
      long id = w;
      futures.add(
          pool.submit(
              () -> {
                start.await();
                tx.write(TestTables.row(id, "EU"));
                return tx.commit(Map.of());
              }));
    }
    start.countDown();
    int committed = 0;
    for (Future<CommitResult> f : futures) {
      CommitResult r = f.get();
      if (r.committed()) {
        committed++;
      } else {
        assertThat(r.outcome()).isEqualTo(CommitResult.Outcome.SKIPPED_ALREADY_COMMITTED);
      }
    }
    pool.shutdown();

    assertThat(committed).isEqualTo(1);
    Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    assertThat(snapshot.version()).isEqualTo(1);
    assertThat(snapshot.latestTransactionVersion("pipe")).hasValue(42);
    assertThat(TestTables.rows(store, snapshot)).hasSize(1);
  }

  /**
   * The lost-race check (ConflictRules' ALREADY_COMMITTED): a commit whose last attempt loses its
   * version to a commit of the same transaction is a skip. Without it the committer would need one
   * more attempt, whose check on the caught-up state finds the same commit; with none left the
   * batch would fail though the table holds it.
   */
  @Test
  void aLastAttemptLostToTheSameTransactionIsASkipNotAFailure() throws Exception {
    DeltaTable.open(store, TestTables.fastOptions(clock)).create(SCHEMA, List.of(), Map.of());
    DeltaTable oneAttempt =
        DeltaTable.open(
            store,
            TestTables.fastOptions(clock)
                .withCommitRetry(TableOptions.DEFAULT_COMMIT_RETRY.withMaxAttempts(1)));
    try (AppendTransaction late = oneAttempt.newAppend(new TransactionId("pipe", 42))) {
      assertThat(late.alreadyCommitted()).isFalse();
      late.write(TestTables.row(1, "EU"));
      TestTables.append(DeltaTable.open(store, TestTables.fastOptions(clock)), "pipe", 42, 1, 2);
      CommitResult result = late.commit(Map.of());
      assertThat(result.outcome()).isEqualTo(CommitResult.Outcome.SKIPPED_ALREADY_COMMITTED);
      assertThat(result.tableVersion()).isEqualTo(1);
    }
    Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    assertThat(snapshot.version()).isEqualTo(1);
    assertThat(TestTables.rows(store, snapshot)).hasSize(1);
  }
}
