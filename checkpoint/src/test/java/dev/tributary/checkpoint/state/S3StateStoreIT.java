package dev.tributary.checkpoint.state;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;

/** The state store contract with the checkpoint on a real S3 API server. */
class S3StateStoreIT extends StateStoreContract {
  @Override
  protected ObjectStore newStore() throws Exception {
    S3TestServer server = S3TestServer.shared();
    return ObjectStores.open(
        "s3://" + server.createBucket() + "/checkpoints/p1", server.settings());
  }
}
