package dev.tributary.checkpoint;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;

/** The checkpoint contract on a real S3 API server (conditional PUT with If-None-Match). */
class S3CheckpointIT extends CheckpointContract {
  @Override
  protected ObjectStore newStore() throws Exception {
    S3TestServer server = S3TestServer.shared();
    return ObjectStores.open(
        "s3://" + server.createBucket() + "/checkpoints/orders", server.settings());
  }
}
