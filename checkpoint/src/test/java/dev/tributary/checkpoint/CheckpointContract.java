package dev.tributary.checkpoint;

import static dev.tributary.checkpoint.Entries.commit;
import static dev.tributary.checkpoint.Entries.offsets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint's behaviour, run against every kind of {@link ObjectStore} by the subclasses:
 * recovery decisions, identity checks, concurrency detection, corruption detection, retention.
 */
abstract class CheckpointContract {
  private static final Map<String, String> IDENTITY =
      Map.of("group-by", "customer_id", "window", "1h", "format", "json");

  protected ObjectStore store;

  /** A new, empty store for one test. */
  protected abstract ObjectStore newStore() throws Exception;

  @BeforeEach
  void setUp() throws Exception {
    store = newStore();
  }

  @AfterEach
  void tearDown() throws Exception {
    store.close();
  }

  protected Checkpoint open() throws Exception {
    return Checkpoint.open(store, "orders-hourly", IDENTITY);
  }

  @Test
  void freshCheckpointHasNothingToRecover() throws Exception {
    RecoveryPlan plan = open().recover();

    assertThat(plan.action()).isEqualTo(RecoveryPlan.Action.NONE);
    assertThat(plan.nextBatchId()).isZero();
    assertThat(plan.batchToReplay()).isEmpty();
    assertThat(plan.watermarkMicros()).isEmpty();
    assertThat(plan.startOffsets()).isEmpty();
    assertThat(plan.stateVersionToLoad()).isEmpty();
  }

  @Test
  void committedLatestBatchResumesAfterIt() throws Exception {
    Checkpoint checkpoint = open();
    Entries.runBatches(checkpoint, 3);

    RecoveryPlan plan = open().recover();

    assertThat(plan.action()).isEqualTo(RecoveryPlan.Action.RESUME);
    assertThat(plan.nextBatchId()).isEqualTo(3);
    assertThat(plan.batchToReplay()).isEmpty();
    assertThat(plan.watermarkMicros()).isEqualTo(commit(2).nextWatermarkMicros());
    assertThat(plan.startOffsets())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(new SourcePartition("orders", 0), 30L, new SourcePartition("orders", 1), 10L));
    assertThat(plan.stateVersionToLoad()).hasValue(2);
    assertThat(plan.latestCommit()).contains(commit(2));
  }

  @Test
  void uncommittedLatestBatchIsReplayedWithItsExactRangesAndWatermark() throws Exception {
    Checkpoint checkpoint = open();
    Entries.runBatches(checkpoint, 2);
    checkpoint.writeOffsets(offsets(2));

    RecoveryPlan plan = open().recover();

    assertThat(plan.action()).isEqualTo(RecoveryPlan.Action.REPLAY);
    assertThat(plan.nextBatchId()).isEqualTo(2);
    assertThat(plan.batchToReplay()).contains(offsets(2));
    assertThat(plan.watermarkMicros()).isEqualTo(offsets(2).watermarkMicros());
    assertThat(plan.stateVersionToLoad()).hasValue(1);
    assertThat(plan.latestCommit()).contains(commit(1));
  }

  @Test
  void firstBatchUncommittedIsReplayedFromTheEmptyState() throws Exception {
    Checkpoint checkpoint = open();
    checkpoint.writeOffsets(offsets(0));

    RecoveryPlan plan = checkpoint.recover();

    assertThat(plan.action()).isEqualTo(RecoveryPlan.Action.REPLAY);
    assertThat(plan.nextBatchId()).isZero();
    assertThat(plan.latestCommit()).isEmpty();
    assertThat(plan.stateVersionToLoad()).isEmpty();
  }

  @Test
  void entriesRoundTripEveryField() throws Exception {
    Checkpoint checkpoint = open();
    OffsetsEntry full =
        new OffsetsEntry(
            0,
            Map.of(
                new SourcePartition("a.b_c-d", 7),
                new OffsetRange(0, Long.MAX_VALUE),
                new SourcePartition("zeta", 0),
                new OffsetRange(42, 42)),
            OptionalLong.of(-5),
            Instant.parse("2026-01-02T03:04:05.000000001Z"),
            Map.of("k", "v \"quoted\" \n newline ünicode", "empty", ""));
    CommitEntry noWatermark = new CommitEntry(0, OptionalLong.empty(), Instant.EPOCH, Map.of());
    checkpoint.writeOffsets(full);
    checkpoint.writeCommit(noWatermark);
    OffsetsEntry bare =
        new OffsetsEntry(1, Map.of(), OptionalLong.empty(), Instant.EPOCH, Map.of());
    checkpoint.writeOffsets(bare);

    Checkpoint reopened = open();
    assertThat(reopened.offsets(0)).contains(full);
    assertThat(reopened.commit(0)).contains(noWatermark);
    assertThat(reopened.latestOffsets()).contains(bare);
    assertThat(reopened.latestCommit()).contains(noWatermark);
    assertThat(reopened.offsets(5)).isEmpty();
    assertThat(reopened.commit(1)).isEmpty();
  }

  @Test
  void filesHaveAVersionHeaderAndOneJsonDocument() throws Exception {
    open().writeOffsets(offsets(0));

    String text = new String(store.read("offsets/00000000000000000000"), StandardCharsets.UTF_8);

    assertThat(text).startsWith("v1\n{").endsWith("}\n");
    assertThat(text.lines()).hasSize(2);
    assertThat(text).contains("\"topic\":\"orders\"", "\"watermarkMicros\":0");
  }

  @Test
  void reopeningWithTheSameIdentityKeepsTheMetadata() throws Exception {
    CheckpointMetadata first = open().metadata();
    CheckpointMetadata second = open().metadata();

    assertThat(second).isEqualTo(first);
    assertThat(first.version()).isEqualTo(1);
    assertThat(first.pipelineId()).isEqualTo("orders-hourly");
    assertThat(first.identity()).isEqualTo(IDENTITY);
    assertThat(first.formatVersion()).isEqualTo(Checkpoint.FORMAT_VERSION);
    assertThat(store.list("metadata/"))
        .extracting(ObjectInfo::key)
        .containsExactly("metadata/00000000000000000001");
  }

  @Test
  void aNewCheckpointGetsAnIdThatCompatibleChangesKeep() throws Exception {
    Checkpoint first =
        Checkpoint.open(store, "orders", Map.of("source", "orders", "sink", "a"), Set.of("sink"));
    Checkpoint changed =
        Checkpoint.open(store, "orders", Map.of("source", "orders", "sink", "b"), Set.of("sink"));

    assertThat(first.metadata().checkpointId()).isPresent();
    assertThat(changed.metadata().version()).isEqualTo(2);
    assertThat(changed.metadata().checkpointId()).isEqualTo(first.metadata().checkpointId());
  }

  @Test
  void twoNewCheckpointsOfOnePipelineHaveDifferentIds() throws Exception {
    Checkpoint one = Checkpoint.open(store, "orders", Map.of("source", "orders"));
    for (ObjectInfo info : store.list("")) {
      store.delete(info.key());
    }
    Checkpoint other = Checkpoint.open(store, "orders", Map.of("source", "orders"));

    assertThat(other.metadata().checkpointId()).isNotEqualTo(one.metadata().checkpointId());
  }

  @Test
  void identityMismatchListsEveryChangedPartOldToNew() throws Exception {
    open();
    Map<String, String> changed = Map.of("group-by", "region", "window", "2h", "dedup", "id");

    assertThatThrownBy(() -> Checkpoint.open(store, "orders-hourly", changed))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageStartingWith(
            "Cannot start pipeline orders-hourly: the checkpoint in "
                + store.location()
                + " was written by a different declaration (")
        .hasMessageContaining("dedup changed from (absent) to [id]")
        .hasMessageContaining("format changed from [json] to (absent)")
        .hasMessageContaining("group-by changed from [customer_id] to [region]")
        .hasMessageContaining("window changed from [1h] to [2h]")
        .hasMessageEndingWith(
            "restore the old declaration, or start a new checkpoint location (with"
                + " source.kafka.starting-offsets: table to continue after the data the sink table holds).")
        .satisfies(
            e ->
                assertThat(((CheckpointMismatchException) e).changedParts())
                    .containsExactly("dedup", "format", "group-by", "window"));
  }

  @Test
  void differentPipelineIdIsRefused() throws Exception {
    open();

    assertThatThrownBy(() -> Checkpoint.open(store, "payments", IDENTITY))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageContaining("Cannot start pipeline payments")
        .hasMessageContaining("pipeline-id changed from [orders-hourly] to [payments]")
        .satisfies(
            e ->
                assertThat(((CheckpointMismatchException) e).changedParts())
                    .containsExactly("pipeline-id"));
  }

  @Test
  void compatibleChangesWriteANewMetadataVersion() throws Exception {
    CheckpointMetadata v1 = open().metadata();
    Map<String, String> newFormat =
        Map.of(
            "group-by", "customer_id", "window", "1h", "format", "avro", "sink-options", "compact");
    Set<String> compatible = Set.of("format", "sink-options");

    CheckpointMetadata v2 =
        Checkpoint.open(store, "orders-hourly", newFormat, compatible).metadata();
    CheckpointMetadata again =
        Checkpoint.open(store, "orders-hourly", newFormat, compatible).metadata();

    assertThat(v2.version()).isEqualTo(2);
    assertThat(v2.identity()).isEqualTo(newFormat);
    assertThat(v2.createdAt()).isEqualTo(v1.createdAt());
    assertThat(again).isEqualTo(v2);
    // The compatible change does not make an incompatible one acceptable.
    assertThatThrownBy(() -> Checkpoint.open(store, "orders-hourly", IDENTITY))
        .isInstanceOf(CheckpointMismatchException.class)
        .hasMessageContaining("format changed from [avro] to [json]")
        .hasMessageContaining("sink-options changed from [compact] to (absent)");
  }

  @Test
  void rewritingAnIdenticalEntryIsIdempotent() throws Exception {
    Checkpoint checkpoint = open();
    checkpoint.writeOffsets(offsets(0));
    checkpoint.writeOffsets(offsets(0));
    checkpoint.writeCommit(commit(0));
    checkpoint.writeCommit(commit(0));

    assertThat(checkpoint.recover().action()).isEqualTo(RecoveryPlan.Action.RESUME);
    assertThat(store.list("offsets/")).hasSize(1);
  }

  @Test
  void aDifferentEntryForTheSameBatchIsAConcurrentPipeline() throws Exception {
    Checkpoint checkpoint = open();
    checkpoint.writeOffsets(offsets(0));
    OffsetsEntry other =
        new OffsetsEntry(
            0,
            offsets(0).ranges(),
            OptionalLong.of(7),
            offsets(0).plannedAt(),
            offsets(0).extras());

    assertThatThrownBy(() -> open().writeOffsets(other))
        .isInstanceOf(ConcurrentPipelineException.class)
        .hasMessageStartingWith(
            "Pipeline orders-hourly: checkpoint file"
                + " 'offsets/00000000000000000000' in "
                + store.location()
                + " was already written by another process with different content")
        .hasMessageContaining(
            "(it holds batch 0 planned at 2026-11-29T08:00:00.123456789Z to read orders/0 [0, 10),"
                + " orders/1 [0, 0), watermark 1970-01-01T00:00:00Z, extras {planner=test}; this"
                + " process wrote batch 0 planned at 2026-11-29T08:00:00.123456789Z to read"
                + " orders/0 [0, 10), orders/1 [0, 0), watermark 1970-01-01T00:00:00.000007Z,"
                + " extras {planner=test}).")
        .hasMessageContaining("stop all but one of them")
        .hasMessageNotContaining("OffsetsEntry[");
    assertThat(checkpoint.offsets(0)).contains(offsets(0));
  }

  @Test
  void twoInstancesRacingForEachBatchHaveExactlyOneWinner() throws Exception {
    Checkpoint a = open();
    Checkpoint b = open();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (long n = 0; n < 10; n++) {
        OffsetsEntry fromA = offsets(n);
        OffsetsEntry fromB =
            new OffsetsEntry(
                n,
                fromA.ranges(),
                fromA.watermarkMicros(),
                fromA.plannedAt().plusNanos(1),
                fromA.extras());
        List<Throwable> outcomes =
            race(
                pool,
                () -> {
                  a.writeOffsets(fromA);
                  return null;
                },
                () -> {
                  b.writeOffsets(fromB);
                  return null;
                });
        assertThat(outcomes).as("batch %d", n).containsOnlyOnce((Throwable) null);
        assertThat(outcomes.stream().filter(t -> t != null))
            .singleElement()
            .isInstanceOf(ConcurrentPipelineException.class)
            .extracting(Throwable::getMessage)
            .asString()
            .contains("offsets/" + String.format("%020d", n), "orders-hourly");
        OffsetsEntry winner = outcomes.get(0) == null ? fromA : fromB;
        assertThat(a.offsets(n)).contains(winner);

        CommitEntry commitA = commit(n);
        CommitEntry commitB =
            new CommitEntry(
                n,
                commitA.nextWatermarkMicros(),
                commitA.committedAt().plusNanos(1),
                commitA.extras());
        List<Throwable> commits =
            race(
                pool,
                () -> {
                  a.writeCommit(commitA);
                  return null;
                },
                () -> {
                  b.writeCommit(commitB);
                  return null;
                });
        assertThat(commits).as("commit %d", n).containsOnlyOnce((Throwable) null);
        assertThat(commits.stream().filter(t -> t != null))
            .singleElement()
            .isInstanceOf(ConcurrentPipelineException.class);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<Throwable> race(
      ExecutorService pool, Callable<Void> first, Callable<Void> second) throws Exception {
    CyclicBarrier start = new CyclicBarrier(2);
    List<Future<Void>> futures = new ArrayList<>();
    for (Callable<Void> task : List.of(first, second)) {
      futures.add(
          pool.submit(
              () -> {
                start.await(10, TimeUnit.SECONDS);
                return task.call();
              }));
    }
    List<Throwable> outcomes = new ArrayList<>();
    for (Future<Void> f : futures) {
      try {
        f.get(30, TimeUnit.SECONDS);
        outcomes.add(null);
      } catch (ExecutionException e) {
        outcomes.add(e.getCause());
      }
    }
    return outcomes;
  }

  @Test
  void planningABatchBeforeThePreviousOneIsCommittedIsRefused() throws Exception {
    Checkpoint checkpoint = open();
    checkpoint.writeOffsets(offsets(0));

    assertThatThrownBy(() -> checkpoint.writeOffsets(offsets(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Pipeline orders-hourly, checkpoint "
                + store.location()
                + ": cannot plan batch 1 because batch 0 has no commit entry. Call"
                + " Checkpoint.recover() at start and follow its plan: replay or resume.");
    assertThat(store.list("offsets/")).hasSize(1);
  }

  @Test
  void committingABatchThatWasNeverPlannedIsRefused() throws Exception {
    Checkpoint checkpoint = open();

    assertThatThrownBy(() -> checkpoint.writeCommit(commit(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot commit batch 0 because it has no offsets entry");
    assertThat(store.list("commits/")).isEmpty();
  }

  @Test
  void emptyFileIsCorrupt() throws Exception {
    store.put("offsets/00000000000000000000", new byte[0]);

    assertThatThrownBy(() -> open().recover())
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessage(
            "Cannot read checkpoint file 'offsets/00000000000000000000' in "
                + store.location()
                + ": the file is empty (0 bytes), probably left by a crash during a write.");
  }

  @Test
  void truncatedFileIsCorrupt() throws Exception {
    Checkpoint checkpoint = open();
    checkpoint.writeOffsets(offsets(0));
    byte[] whole = store.read("offsets/00000000000000000000");
    for (int length : new int[] {1, 2, 3, 10, whole.length - 2, whole.length - 1}) {
      store.put("offsets/00000000000000000000", Arrays.copyOf(whole, length));

      assertThatThrownBy(() -> checkpoint.offsets(0))
          .as("truncated to %d bytes", length)
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageStartingWith(
              "Cannot read checkpoint file 'offsets/00000000000000000000' in "
                  + store.location()
                  + ": ")
          .hasMessageMatching("(?s).*(truncated|not one JSON document).*");
    }
  }

  @Test
  void newerFormatVersionAsksForANewerTributary() throws Exception {
    store.put(
        "commits/00000000000000000003", "v2\n{\"batchId\":3}\n".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> open().commit(3))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("'commits/00000000000000000003'")
        .hasMessageContaining(
            "format version v2 is newer than v1, the highest this release reads: written by a"
                + " newer Tributary? Upgrade Tributary");
  }

  @Test
  void malformedContentIsCorruptWithTheReason() throws Exception {
    Checkpoint checkpoint = open();
    Map<String, String> cases =
        Map.of(
            "version 1\n{}\n",
            "the first line should be a format version like 'v1', found 'version 1'",
            "v0\n{}\n",
            "found 'v0'",
            "v1\n[1,2]\n",
            "the content is not a JSON object",
            "v1\n{\"batchId\":0} trailing\n",
            "the content is not one JSON document",
            "v1\n{\"batchId\":0,\"plannedAt\":\"2026-01-01T00:00:00Z\",\"extras\":{}}\n",
            "field 'ranges' is missing",
            "v1\n{\"batchId\":\"zero\"}\n",
            "field 'batchId' should be an integer, found \"zero\"",
            "v1\n{\"batchId\":0,\"plannedAt\":\"yesterday\",\"ranges\":[],\"extras\":{}}\n",
            "field 'plannedAt' should be an ISO-8601 instant, found 'yesterday'",
            "v1\n{\"batchId\":0,\"plannedAt\":\"2026-01-01T00:00:00Z\",\"extras\":{},\"ranges\":"
                + "[{\"topic\":\"t\",\"partition\":0,\"start\":9,\"end\":3}]}\n",
            "invalid ranges[0].range: Invalid offset range [9, 3)",
            "v1\n{\"batchId\":1,\"plannedAt\":\"2026-01-01T00:00:00Z\",\"ranges\":[],\"extras\":{}}\n",
            "the file holds batch 1 but its name says batch 0");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      store.put("offsets/00000000000000000000", c.getKey().getBytes(StandardCharsets.UTF_8));

      assertThatThrownBy(() -> checkpoint.offsets(0))
          .as(c.getKey())
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining("'offsets/00000000000000000000' in " + store.location())
          .hasMessageContaining(c.getValue());
    }
  }

  @Test
  void metadataOfANewerLayoutOrTruncatedIsRefused() throws Exception {
    open();
    String newer =
        new String(store.read("metadata/00000000000000000001"), StandardCharsets.UTF_8)
            .replace("\"formatVersion\":1", "\"formatVersion\":2");
    store.put("metadata/00000000000000000002", newer.getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(this::open)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessage(
            "Cannot read checkpoint file 'metadata/00000000000000000002' in "
                + store.location()
                + ": checkpoint layout version 2 is newer than 1, the highest this"
                + " release understands: written by a newer Tributary? Upgrade Tributary to use this"
                + " checkpoint.");

    store.put(
        "metadata/00000000000000000002",
        "v1\n{\"formatVersion\":1,\"vers".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(this::open)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("'metadata/00000000000000000002'")
        .hasMessageContaining("truncated write?");
  }

  @Test
  void commitWithoutOffsetsIsInconsistent() throws Exception {
    Checkpoint checkpoint = open();
    Entries.runBatches(checkpoint, 2);
    store.delete("offsets/00000000000000000001");
    store.delete("offsets/00000000000000000000");

    assertThatThrownBy(checkpoint::recover)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageStartingWith(
            "Inconsistent checkpoint in "
                + store.location()
                + ": commit entry for batch 1 exists but the offsets log is empty");
  }

  @Test
  void plannedBatchAfterAnUncommittedOneIsInconsistent() throws Exception {
    Checkpoint checkpoint = open();
    Entries.runBatches(checkpoint, 3);
    store.delete("commits/00000000000000000002");
    store.delete("commits/00000000000000000001");

    assertThatThrownBy(checkpoint::recover)
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(
            "batch 2 was planned but batch 1 has no commit entry"
                + " (the latest commit is for batch 0)");
  }

  @Test
  void strayFilesInTheLogsAreIgnored() throws Exception {
    Checkpoint checkpoint = open();
    Entries.runBatches(checkpoint, 1);
    store.put("offsets/README", "notes".getBytes(StandardCharsets.UTF_8));
    store.put("commits/1.bak", "old".getBytes(StandardCharsets.UTF_8));

    assertThat(checkpoint.recover().nextBatchId()).isEqualTo(1);
  }

  @Test
  void purgeKeepsTheLastCommittedBatchesAndEverythingAfterThem() throws Exception {
    Checkpoint checkpoint = open();
    Entries.runBatches(checkpoint, 10);
    checkpoint.writeOffsets(offsets(10));

    assertThat(checkpoint.purge(3)).isEqualTo(7);

    assertThat(store.list("offsets/"))
        .extracting(ObjectInfo::key)
        .containsExactly(
            "offsets/00000000000000000007", "offsets/00000000000000000008",
            "offsets/00000000000000000009", "offsets/00000000000000000010");
    assertThat(store.list("commits/"))
        .extracting(ObjectInfo::key)
        .containsExactly(
            "commits/00000000000000000007",
            "commits/00000000000000000008",
            "commits/00000000000000000009");
    RecoveryPlan plan = checkpoint.recover();
    assertThat(plan.action()).isEqualTo(RecoveryPlan.Action.REPLAY);
    assertThat(plan.batchToReplay()).contains(offsets(10));

    assertThat(checkpoint.purge(1)).isEqualTo(2);
    assertThat(checkpoint.purge(1)).isZero();
    assertThat(checkpoint.recover().latestCommit()).contains(commit(9));
    assertThat(store.list("offsets/")).hasSize(2);
    // After a purge the log goes on normally.
    checkpoint.writeCommit(commit(10));
    checkpoint.writeOffsets(offsets(11));
    assertThat(checkpoint.recover().nextBatchId()).isEqualTo(11);
  }

  @Test
  void purgeOfAnUncommittedCheckpointDeletesNothing() throws Exception {
    Checkpoint checkpoint = open();
    checkpoint.writeOffsets(offsets(0));

    assertThat(checkpoint.purge(1)).isZero();
    assertThat(store.list("offsets/")).hasSize(1);
    assertThatThrownBy(() -> checkpoint.purge(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keepLastBatches must be >= 1 (the latest commit is always kept), got 0");
  }
}
