package dev.tributary.checkpoint;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.awaitility.Awaitility;

/**
 * The lease contract on a real S3 API server: conditional PUT for the epochs, and the server's own
 * modification times for expiry. S3 keeps no other clock a client could move, so time really passes
 * here (about half a minute per expiry test).
 */
class S3LeaseIT extends LeaseContract {
  @Override
  protected ObjectStore newStore() throws Exception {
    S3TestServer server = S3TestServer.shared();
    return ObjectStores.open(
        "s3://" + server.createBucket() + "/checkpoints/orders", server.settings());
  }

  /** Short, to keep the test fast: S3 keeps no clock a client could move. */
  @Override
  protected Duration duration() {
    return Duration.ofSeconds(8);
  }

  @Override
  protected void letTimePass(Duration time) throws Exception {
    Instant from = serverTime();
    Instant until = from.plus(time).plusSeconds(1); // S3 times are whole seconds
    Awaitility.await()
        .atMost(time.plusSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> !serverTime().isBefore(until));
  }

  private Instant serverTime() throws Exception {
    store.put("probe", "now".getBytes(StandardCharsets.UTF_8));
    return store.stat("probe").map(ObjectInfo::lastModified).orElseThrow();
  }
}
