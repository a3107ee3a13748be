package dev.tributary.storage;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.storage.testing.ObjectStoreContractTest;

class InMemoryObjectStoreTest extends ObjectStoreContractTest {
  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore();
  }
}
