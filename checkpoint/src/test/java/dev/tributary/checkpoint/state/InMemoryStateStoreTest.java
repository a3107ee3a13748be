package dev.tributary.checkpoint.state;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.InMemoryObjectStore;

/** The state store contract with the checkpoint in memory. */
class InMemoryStateStoreTest extends StateStoreContract {
  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore();
  }
}
