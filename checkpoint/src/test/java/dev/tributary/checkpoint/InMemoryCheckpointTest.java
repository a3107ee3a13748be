package dev.tributary.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.InMemoryObjectStore;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint contract on the in-memory store, plus the tests whose subject does not depend on
 * the store (kept here so that slower stores do not repeat them).
 */
class InMemoryCheckpointTest extends CheckpointContract {
  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore();
  }

  @Test
  void purgeWithTheDefaultKeepsAHundredBatches() throws Exception {
    Checkpoint checkpoint = open();
    Entries.runBatches(checkpoint, 105);

    assertThat(checkpoint.purge()).isEqualTo(5);
    assertThat(store.list("commits/"))
        .hasSize(100)
        .first()
        .extracting(ObjectInfo::key)
        .isEqualTo("commits/00000000000000000005");
  }
}
