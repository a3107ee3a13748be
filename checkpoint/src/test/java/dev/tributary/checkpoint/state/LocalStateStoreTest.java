package dev.tributary.checkpoint.state;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The state store contract with the checkpoint on local disk. */
class LocalStateStoreTest extends StateStoreContract {
  @TempDir Path checkpointDir;

  @Override
  protected ObjectStore newStore() throws Exception {
    return ObjectStores.open(checkpointDir.toString(), null);
  }
}
