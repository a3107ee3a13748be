package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.testing.ObjectStoreContractTest;
import dev.tributary.storage.testing.S3TestServer;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract through {@link ObjectStores#under} a real S3 API server's store (one client).
 */
class PrefixedS3ObjectStoreIT extends ObjectStoreContractTest {
  private static final S3TestServer SERVER = S3TestServer.shared();
  private String bucket;
  private ObjectStore parent;

  @Override
  protected ObjectStore newStore() throws IOException {
    bucket = SERVER.createBucket();
    parent = ObjectStores.open("s3://" + bucket + "/checkpoints/p", SERVER.settings());
    return ObjectStores.under(parent, "partitions/1");
  }

  @AfterEach
  void closeParent() throws IOException {
    parent.close();
  }

  /** As in {@link S3ObjectStoreIT}: S3Proxy lists a PUT's temporary file while it is written. */
  @Override
  protected boolean listingHidesWritesInProgress() {
    return false;
  }

  @Test
  void theViewIsRootedUnderTheParentsPrefixAndClosingItKeepsTheClient() throws IOException {
    parent.put("partitions/10/commits/0", new byte[1]);
    store.put("commits/0", new byte[] {1});
    store.close();

    assertThat(store.location()).isEqualTo("s3://" + bucket + "/checkpoints/p/partitions/1");
    try (ObjectStore bucketRoot = ObjectStores.open("s3://" + bucket, SERVER.settings())) {
      assertThat(keys(bucketRoot.list("")))
          .containsExactly(
              "checkpoints/p/partitions/1/commits/0", "checkpoints/p/partitions/10/commits/0");
    }
    assertThat(parent.read("partitions/1/commits/0"))
        .containsExactly(1); // the parent's client still works
    try (ObjectStore again = ObjectStores.under(parent, "partitions/1")) {
      assertThat(keys(again.list(""))).containsExactly("commits/0");
    }
  }
}
