package dev.tributary.checkpoint;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint contract on local disk (exclusive-create put-if-absent). */
class LocalCheckpointTest extends CheckpointContract {
  @TempDir Path dir;

  @Override
  protected ObjectStore newStore() throws Exception {
    return ObjectStores.open(dir.resolve("checkpoint").toString(), null);
  }
}
