package dev.tributary.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.testing.ObjectStoreContractTest;
import dev.tributary.storage.testing.S3TestServer;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The contract against a real S3 API server, through a store rooted at a key prefix, with 5 MiB
 * parts so that the 20 MiB streaming write is a four-part multipart upload.
 */
class S3ObjectStoreIT extends ObjectStoreContractTest {
  private static final S3TestServer SERVER = S3TestServer.shared();
  private String bucket;

  @Override
  protected ObjectStore newStore() throws IOException {
    bucket = SERVER.createBucket();
    return ObjectStores.open("s3://" + bucket + "/tables/t1/", SERVER.settings());
  }

  /**
   * S3Proxy's nio2 backends write a PUT to a temporary {@code <key>-<uuid>} file next to the key
   * and list it until the PUT completes; AWS S3 never lists an object before its PUT completes.
   */
  @Override
  protected boolean listingHidesWritesInProgress() {
    return false;
  }

  @Test
  void theStoreIsRootedAtItsPrefix() throws IOException {
    store.put("a/b.json", "{}".getBytes(UTF_8));

    assertThat(store.location()).isEqualTo("s3://" + bucket + "/tables/t1");
    try (ObjectStore bucketRoot = ObjectStores.open("s3://" + bucket, SERVER.settings())) {
      assertThat(keys(bucketRoot.list(""))).containsExactly("tables/t1/a/b.json");
      assertThat(bucketRoot.read("tables/t1/a/b.json")).isEqualTo("{}".getBytes(UTF_8));
    }
  }

  @Test
  void listingPagesThroughManyPages() throws IOException {
    for (int i = 0; i < 23; i++) {
      store.put(String.format("many/%05d", i), new byte[0]);
    }
    try (ObjectStore paged = new S3ObjectStore(bucket, "tables/t1/", SERVER.settings(), 5)) {
      assertThat(keys(paged.list("many/"))).hasSize(23).isSortedAccordingTo(ObjectKeys.ORDER);
      assertThat(keys(paged.list("many/", "many/00011")))
          .hasSize(11)
          .first()
          .isEqualTo("many/00012");
    }
  }
}
