package dev.tributary.table;

import static dev.tributary.table.TestTables.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.retry.RetryCounters;
import dev.tributary.storage.testing.FaultInjectingObjectStore;
import dev.tributary.storage.testing.FaultInjectingObjectStore.Operation;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.SetTransaction;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommitFaultTest {
  final TestTables.MutableClock clock =
      new TestTables.MutableClock(Instant.parse("2025-01-01T00:00:00Z"));
  final InMemoryObjectStore memory = new InMemoryObjectStore(clock);
  final FaultInjectingObjectStore store = new FaultInjectingObjectStore(memory);
  final DeltaTable table = DeltaTable.open(store, TestTables.fastOptions(clock));

  @Test
  void aCreationThatLandedButThrewIsResolvedFromTheLog() throws Exception {
    store.succeedThenThrow(Operation.PUT_IF_ABSENT, 1);

    Snapshot created = table.create(SCHEMA, List.of(), Map.of());

    assertThat(created.version()).isZero();
    assertThat(created.schema()).isEqualTo(SCHEMA);
    assertThat(new DeltaLog(memory).commitsAfter(-1)).containsExactly(0L);
  }

  @Test
  void aCreationThatFailedBeforeLandingReportsTheError() {
    store.failNext(Operation.PUT_IF_ABSENT, 1);

    assertThatThrownBy(() -> table.create(SCHEMA, List.of(), Map.of()))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(FaultInjectingObjectStore.MESSAGE_PREFIX);
  }

  @Test
  void failedPutIsRetriedAndCommitsOnce() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    store.failNext(Operation.PUT_IF_ABSENT, 2);

    CommitResult r = TestTables.append(table, "p", 0, 0, 5);

    assertThat(r.committed()).isTrue();
    assertThat(r.tableVersion()).isEqualTo(1);
    assertThat(r.attempts()).isEqualTo(3);
    assertThat(table.counters().unknownStates()).isEqualTo(2);
    assertThat(table.counters().retries()).isEqualTo(2);
    assertThat(txnCount("p", 0)).isEqualTo(1);
  }

  @Test
  void retriesAreCountedUnderTheCommitSite() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    long before = RetryCounters.retries("delta.commit");
    store.failNext(Operation.PUT_IF_ABSENT, 2);

    TestTables.append(table, "p", 0, 0, 5);

    assertThat(RetryCounters.retries("delta.commit")).isEqualTo(before + 2);
  }

  @Test
  void putThatLandedButThrewIsResolvedFromTheLogWithoutDuplicate() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    store.succeedThenThrow(Operation.PUT_IF_ABSENT, 1);

    CommitResult r = TestTables.append(table, "p", 0, 0, 5);

    assertThat(r.committed()).isTrue();
    assertThat(r.tableVersion()).isEqualTo(1);
    assertThat(new DeltaLog(memory).commitsAfter(-1)).containsExactly(0L, 1L);
    assertThat(txnCount("p", 0)).isEqualTo(1);
    assertThat(TestTables.rows(memory, DeltaTable.open(memory, TableOptions.defaults()).snapshot()))
        .hasSize(5);
  }

  @Test
  void landedPutWithUnreadableLogIsResolvedOnALaterAttempt() throws Exception {
    table.create(SCHEMA, List.of(), Map.of());
    AppendTransaction tx = table.newAppend(new TransactionId("p", 0));
    tx.write(TestTables.row(1, "EU"));
    store.succeedThenThrow(Operation.PUT_IF_ABSENT, 1).failNext(Operation.LIST, 1);

    CommitResult r = tx.commit(Map.of());

    // Attempt 2 finds version 1 taken (by us), and reading it back recognizes our txnId.
    assertThat(r.committed()).isTrue();
    assertThat(r.tableVersion()).isEqualTo(1);
    assertThat(txnCount("p", 0)).isEqualTo(1);
  }

  @Test
  void exhaustedRetriesWithUnknownOutcomeSayDoNotCleanUp() throws Exception {
    DeltaTable impatient =
        DeltaTable.open(
            store,
            TestTables.fastOptions(clock)
                .withCommitRetry(
                    TableOptions.DEFAULT_COMMIT_RETRY
                        .withMaxAttempts(2)
                        .withBackoff(Duration.ZERO, Duration.ZERO)));
    impatient.create(SCHEMA, List.of(), Map.of());
    AppendTransaction tx = impatient.newAppend(new TransactionId("p", 0));
    store.succeedThenThrow(Operation.PUT_IF_ABSENT, 1).failNext(Operation.LIST, 5);

    assertThatThrownBy(() -> tx.commit(Map.of()))
        .isInstanceOfSatisfying(
            CommitFailedException.class,
            e -> {
              assertThat(e.stateUnknown()).isTrue();
              assertThat(e.retryable()).isTrue();
            })
        .hasMessageContaining("for transaction p/0 did not succeed in 2 attempts")
        .hasMessageContaining("outcome is UNKNOWN")
        .hasMessageContaining("do not delete its data files");
    store.clearFaults();
    // Retrying with the same transaction id resolves it: committed exactly once.
    CommitResult again =
        TestTables.append(DeltaTable.open(store, TestTables.fastOptions(clock)), "p", 0, 0, 1);
    assertThat(txnCount("p", 0)).isEqualTo(1);
    assertThat(again.tableVersion()).isEqualTo(1);
  }

  @Test
  void exhaustedRetriesOfRefusedWritesBlameTheStoreNotConcurrentWriters() throws Exception {
    DeltaTable impatient =
        DeltaTable.open(
            store,
            TestTables.fastOptions(clock)
                .withCommitRetry(
                    TableOptions.DEFAULT_COMMIT_RETRY
                        .withMaxAttempts(2)
                        .withBackoff(Duration.ZERO, Duration.ZERO)));
    impatient.create(SCHEMA, List.of(), Map.of());
    AppendTransaction tx = impatient.newAppend(new TransactionId("p", 0));
    // A full disk: every put fails, and reading the log back shows it did not land.
    store.failNext(Operation.PUT_IF_ABSENT, 2);

    assertThatThrownBy(() -> tx.commit(Map.of()))
        .isInstanceOfSatisfying(
            CommitFailedException.class, e -> assertThat(e.stateUnknown()).isFalse())
        .hasMessageContaining("for transaction p/0 did not succeed in 2 attempts")
        .hasMessageContaining("the last attempt's write failed and is not in the log")
        .hasMessageContaining("retry once the store accepts writes again")
        .hasMessageContaining(
            "Last error: java.io.IOException: " + FaultInjectingObjectStore.MESSAGE_PREFIX)
        .hasMessageNotContaining("concurrent writers");
    assertThat(new DeltaLog(memory).commitsAfter(-1)).containsExactly(0L);
  }

  @Test
  void checkpointFailureNeverFailsTheCommit() throws Exception {
    DeltaTable t =
        DeltaTable.open(store, TestTables.fastOptions(clock).withLogCheckpointInterval(2));
    t.create(SCHEMA, List.of(), Map.of());
    TestTables.append(t, "p", 0, 0, 1);
    store.failNext(Operation.PUT, 1);

    CommitResult r = TestTables.append(t, "p", 1, 1, 2);

    assertThat(r.tableVersion()).isEqualTo(2);
    assertThat(t.counters().checkpointFailures()).isEqualTo(1);
    assertThat(memory.stat(LogFiles.checkpoint(2))).isEmpty();
    assertThat(DeltaTable.open(memory, TableOptions.defaults()).snapshot().version()).isEqualTo(2);
  }

  private long txnCount(String appId, long version) throws Exception {
    DeltaLog log = new DeltaLog(memory);
    long n = 0;
    for (long v : log.commitsAfter(-1)) {
      for (Action a : log.readCommit(v)) {
        if (a instanceof SetTransaction t && t.appId().equals(appId) && t.version() == version) {
          n++;
        }
      }
    }
    return n;
  }
}
