package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.S3TestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The messages users see when S3 is misconfigured, against a real S3 API server. */
class S3ErrorsIT {
  private static final S3TestServer SERVER = S3TestServer.shared();

  @Test
  void aMissingBucketIsNamedWithTheEndpointAndAFix() throws IOException {
    try (ObjectStore store = ObjectStores.open("s3://no-such-bucket-xyz/p", SERVER.settings())) {
      assertThatThrownBy(() -> store.put("k", new byte[1]))
          .isInstanceOf(IOException.class)
          .hasMessage(
              "S3 bucket 'no-such-bucket-xyz' does not exist at "
                  + SERVER.endpoint()
                  + ": create it or fix the path");
      assertThatThrownBy(() -> store.list(""))
          .hasMessageContaining("S3 bucket 'no-such-bucket-xyz' does not exist");
      assertThatThrownBy(() -> store.putIfAbsent("k", new byte[1]))
          .hasMessageContaining("S3 bucket 'no-such-bucket-xyz' does not exist");
    }
  }

  @Test
  void aWrongSecretKeyNamesTheObjectAndSaysToCheckCredentials() throws IOException {
    String bucket = SERVER.createBucket();
    S3Settings wrong = SERVER.settings().withCredentials(S3TestServer.ACCESS_KEY, "wrong-secret");
    try (ObjectStore store = ObjectStores.open("s3://" + bucket + "/p", wrong)) {
      assertThatThrownBy(() -> store.read("some/key"))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Access denied to s3://" + bucket + "/p/some/key")
          .hasMessageContaining("check the access key / credentials")
          .hasMessageNotContaining("wrong-secret");
      assertThatThrownBy(() -> store.putIfAbsent("commit", new byte[1]))
          .hasMessageStartingWith("Access denied to s3://" + bucket + "/p/commit");
    }
  }

  @Test
  void anUnreachableEndpointIsNamed() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    URI endpoint = URI.create("http://127.0.0.1:" + closedPort);
    S3Settings settings = SERVER.settings().withEndpoint(endpoint).withMaxAttempts(2);
    try (ObjectStore store = ObjectStores.open("s3://bucket/p", settings)) {
      assertThatThrownBy(() -> store.read("k"))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot reach S3 endpoint " + endpoint + " for s3://bucket/p/k")
          .hasMessageContaining("check the endpoint URL");
      assertThatThrownBy(() -> store.putIfAbsent("k", new byte[1]))
          .as("a refused connection means nothing was written: not 'state unknown'")
          .hasMessageStartingWith("Cannot reach S3 endpoint " + endpoint);
    }
  }

  @Test
  void aFailedMultipartWriteIsNotPublished() throws IOException {
    String bucket = SERVER.createBucket();
    try (ObjectStore store = ObjectStores.open("s3://" + bucket, SERVER.settings())) {
      ObjectWriter writer = store.create("big");
      writer.write(new byte[(int) S3Settings.MIN_PART_SIZE + 1]); // starts a multipart upload
      writer.abort();

      assertThat(store.stat("big")).isEmpty();
      assertThat(store.list("")).isEmpty();
    }
  }
}
