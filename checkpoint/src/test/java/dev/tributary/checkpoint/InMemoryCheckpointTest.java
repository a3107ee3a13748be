package dev.tributary.checkpoint;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.InMemoryObjectStore;

/** The checkpoint contract on the in-memory store. */
class InMemoryCheckpointTest extends CheckpointContract {
  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore();
  }
}
