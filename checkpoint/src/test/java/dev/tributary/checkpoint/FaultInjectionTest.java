package dev.tributary.checkpoint;

import static dev.tributary.checkpoint.Entries.commit;
import static dev.tributary.checkpoint.Entries.offsets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.FaultInjectingObjectStore;
import dev.tributary.storage.testing.FaultInjectingObjectStore.Operation;
import dev.tributary.storage.testing.InMemoryObjectStore;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Store failures around the put-if-absent of log entries: an error after the write ("state
 * unknown") is resolved by reading, an error before it leaves nothing and can be retried.
 */
class FaultInjectionTest {
  private final FaultInjectingObjectStore store =
      new FaultInjectingObjectStore(new InMemoryObjectStore());

  private Checkpoint open() throws IOException {
    return Checkpoint.open(store, "orders-hourly", Map.of("group-by", "customer_id"));
  }

  @Test
  void writeThatSucceededBeforeTheErrorIsResolvedByReadingAndRetriesAreIdempotent()
      throws Exception {
    Checkpoint checkpoint = open();
    store.succeedThenThrow(Operation.PUT_IF_ABSENT, 2);

    checkpoint.writeOffsets(offsets(0));
    checkpoint.writeCommit(commit(0));

    assertThat(store.pendingFaults(Operation.PUT_IF_ABSENT)).isZero();
    assertThat(checkpoint.recover().action()).isEqualTo(RecoveryPlan.Action.RESUME);
    checkpoint.writeOffsets(offsets(0));
    checkpoint.writeCommit(commit(0));
    assertThat(checkpoint.latestCommit()).contains(commit(0));
  }

  @Test
  void writeThatFailedBeforeDoingAnythingThrowsAndCanBeRetried() throws Exception {
    Checkpoint checkpoint = open();
    store.failNext(Operation.PUT_IF_ABSENT, 1);

    assertThatThrownBy(() -> checkpoint.writeOffsets(offsets(0)))
        .isInstanceOf(IOException.class)
        .hasMessage(
            FaultInjectingObjectStore.MESSAGE_PREFIX
                + "PUT_IF_ABSENT of 'offsets/00000000000000000000' failed before doing anything");
    assertThat(checkpoint.latestOffsets()).isEmpty();

    checkpoint.writeOffsets(offsets(0));
    assertThat(checkpoint.latestOffsets()).contains(offsets(0));
  }

  @Test
  void unknownOutcomeThatCannotBeReadBackIsReportedAndTheRetrySucceeds() throws Exception {
    Checkpoint checkpoint = open();
    store.succeedThenThrow(Operation.PUT_IF_ABSENT, 1).failNext(Operation.READ, 1);

    assertThatThrownBy(() -> checkpoint.writeOffsets(offsets(0)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("was done, then failed (state unknown to the caller)")
        .satisfies(
            e ->
                assertThat(e.getSuppressed())
                    .singleElement()
                    .extracting(Throwable::getMessage)
                    .asString()
                    .contains(
                        "READ of 'offsets/00000000000000000000' failed before doing anything"));

    checkpoint.writeOffsets(offsets(0));
    assertThat(checkpoint.recover().batchToReplay()).contains(offsets(0));
  }

  @Test
  void unknownOutcomeWhereAnotherWriterWonIsAConcurrentPipeline() throws Exception {
    Checkpoint checkpoint = open();
    Checkpoint other =
        Checkpoint.open(store.delegate(), "orders-hourly", Map.of("group-by", "customer_id"));
    other.writeOffsets(offsets(0));
    store.failNext(Operation.PUT_IF_ABSENT, 1);
    OffsetsEntry mine =
        new OffsetsEntry(
            0, Map.of(), offsets(0).watermarkMicros(), offsets(0).plannedAt(), Map.of());

    assertThatThrownBy(() -> checkpoint.writeOffsets(mine))
        .isInstanceOf(ConcurrentPipelineException.class)
        .hasMessageContaining("'offsets/00000000000000000000'");
  }

  @Test
  void metadataCreationSurvivesAnUnknownOutcome() throws Exception {
    store.succeedThenThrow(Operation.PUT_IF_ABSENT, 1);

    CheckpointMetadata created = open().metadata();

    assertThat(open().metadata()).isEqualTo(created);
  }
}
