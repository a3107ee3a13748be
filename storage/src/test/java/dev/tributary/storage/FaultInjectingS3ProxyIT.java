package dev.tributary.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.FaultInjectingS3Proxy;
import dev.tributary.storage.testing.FaultInjectingS3Proxy.Faults;
import dev.tributary.storage.testing.ObjectStoreContractTest;
import dev.tributary.storage.testing.S3TestServer;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fault proxy in front of the real S3 API server. Without faults it must be invisible: the
 * whole object-store contract (keep-alive connections, multipart uploads, ranged reads,
 * conditional-write races, signed payloads) passes through it. With faults, each kind does what it
 * claims: a slow-down never reaches the server, a drop happens after the server acted.
 */
class FaultInjectingS3ProxyIT extends ObjectStoreContractTest {
  private static final S3TestServer SERVER = S3TestServer.shared();
  private static FaultInjectingS3Proxy proxy;
  private String bucket;

  @BeforeAll
  static void startProxy() throws IOException {
    proxy = FaultInjectingS3Proxy.start(SERVER.endpoint(), Faults.none(), 1L);
  }

  @AfterAll
  static void stopProxy() throws IOException {
    proxy.close();
  }

  @Override
  protected ObjectStore newStore() throws IOException {
    bucket = SERVER.createBucket();
    return ObjectStores.open(
        "s3://" + bucket + "/p/", SERVER.settings().withEndpoint(proxy.endpoint()));
  }

  /** S3Proxy lists a PUT's temporary file while the PUT runs (see S3ObjectStoreIT). */
  @Override
  protected boolean listingHidesWritesInProgress() {
    return false;
  }

  /**
   * A store at this test's bucket through a proxy of its own, so that its faults follow only its
   * seed.
   */
  private ObjectStore storeThrough(FaultInjectingS3Proxy faulty, int maxAttempts)
      throws IOException {
    return ObjectStores.open(
        "s3://" + bucket + "/p/",
        SERVER.settings().withEndpoint(faulty.endpoint()).withMaxAttempts(maxAttempts));
  }

  /** The same bucket straight from the server, bypassing every proxy. */
  private ObjectStore direct() throws IOException {
    return ObjectStores.open("s3://" + bucket + "/p/", SERVER.settings());
  }

  @Test
  void aDroppedConditionalPutTookEffectButItsOutcomeIsUnknownToTheClient() throws IOException {
    try (FaultInjectingS3Proxy faulty =
            FaultInjectingS3Proxy.start(
                SERVER.endpoint(), new Faults(0, 0, 0, Duration.ZERO, 1), 1L);
        ObjectStore through = storeThrough(faulty, S3Settings.DEFAULT_MAX_ATTEMPTS);
        ObjectStore server = direct()) {
      assertThatThrownBy(() -> through.putIfAbsent("log/00.json", "ours".getBytes(UTF_8)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("whether the object was created is unknown");

      assertThat(faulty.counts().droppedConditionalPuts()).isEqualTo(1);
      assertThat(server.read("log/00.json")).isEqualTo("ours".getBytes(UTF_8));
    }
  }

  @Test
  void aSlowDownIsAnsweredWithoutReachingTheServer() throws IOException {
    try (FaultInjectingS3Proxy faulty =
            FaultInjectingS3Proxy.start(
                SERVER.endpoint(), new Faults(1, 0, 0, Duration.ZERO, 0), 1L);
        ObjectStore through = storeThrough(faulty, 2);
        ObjectStore server = direct()) {
      assertThatThrownBy(() -> through.put("data/a.parquet", "x".getBytes(UTF_8)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("HTTP 503 SlowDown");
      assertThatThrownBy(() -> through.putIfAbsent("log/00.json", "x".getBytes(UTF_8)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("HTTP 503 SlowDown");

      assertThat(faulty.counts().slowDowns())
          .as("two attempts of the PUT (SDK retry), two of putIfAbsent (its own retry)")
          .isEqualTo(4);
      assertThat(server.stat("data/a.parquet")).isEmpty();
      assertThat(server.stat("log/00.json")).isEmpty();
    }
  }

  @Test
  void anUnreachableServerGetsNothing() throws IOException {
    try (FaultInjectingS3Proxy faulty =
            FaultInjectingS3Proxy.start(SERVER.endpoint(), Faults.none(), 1L);
        ObjectStore through = storeThrough(faulty, 2);
        ObjectStore server = direct()) {
      faulty.unreachable(true);
      assertThatThrownBy(() -> through.put("data/a.parquet", "x".getBytes(UTF_8)))
          .isInstanceOf(IOException.class);
      assertThat(server.stat("data/a.parquet")).isEmpty();

      faulty.unreachable(false);
      through.put("data/a.parquet", "x".getBytes(UTF_8));
      assertThat(server.read("data/a.parquet")).isEqualTo("x".getBytes(UTF_8));
    }
  }

  @Test
  void delayedAndDroppedPlainRequestsAreRetriedByTheClient() throws IOException {
    // one thread, so the faulted requests follow from the seed alone: 20% dropped, none five times
    // in a row
    try (FaultInjectingS3Proxy faulty =
            FaultInjectingS3Proxy.start(
                SERVER.endpoint(), new Faults(0, 0.2, 0.5, Duration.ofMillis(30), 0), 7L);
        ObjectStore through = storeThrough(faulty, S3Settings.DEFAULT_MAX_ATTEMPTS);
        ObjectStore server = direct()) {
      for (int i = 0; i < 20; i++) {
        byte[] data = ("object " + i).getBytes(UTF_8);
        through.put("data/" + i, data);
        assertThat(through.read("data/" + i)).isEqualTo(data);
        assertThat(server.read("data/" + i)).isEqualTo(data);
      }
      assertThat(faulty.counts().drops()).isPositive();
      assertThat(faulty.counts().delays()).isPositive();
    }
  }
}
