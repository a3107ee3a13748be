package dev.tributary.service.engine;

import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import dev.tributary.storage.testing.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once proof: a pipeline runs in a child JVM against a Kafka broker in another process,
 * with a small max-offsets-per-trigger so there are many batches, and is killed again and again:
 * halted at each named step of the batch lifecycle ({@link CrashPoints}, the same as kill -9: no
 * hooks, no flush), and SIGKILLed at random moments. After every kill it is restarted; at the end
 * an available-now run drains the topic. The sink table and the quarantine table must then hold
 * every produced offset exactly once, and nothing else.
 */
class ExactlyOnceCrashIT {
  /**
   * Kills per storage: every second one a halt at the next crash point in {@link CrashFixture}'s
   * order, so each point is halted at once on each storage, and as many random SIGKILLs. (More
   * rounds only halted at the first points a second time: a child JVM each, 3-4 s of CPU.)
   */
  private static final int KILLS = 14;

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.shared();
  }

  @Test
  void localDiskTablesHoldEveryOffsetExactlyOnceAfterRepeatedKills() throws Exception {
    Path work = dir.resolve("local");
    Files.createDirectories(work);
    CrashFixture fixture =
        new CrashFixture(
            broker,
            "orders-local",
            work,
            work.resolve("tables/orders").toString(),
            work.resolve("tables/orders-quarantine").toString(),
            work.resolve("checkpoint").toString(),
            "");
    fixture.runWithKills(KILLS, new Random(20261129L));
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null);
        ObjectStore quarantine = ObjectStores.open(fixture.quarantinePath, null)) {
      fixture.assertExactlyOnce(sink, quarantine);
    }
  }

  @Test
  void s3TablesAndCheckpointHoldEveryOffsetExactlyOnceAfterRepeatedKills() throws Exception {
    S3TestServer s3 = S3TestServer.shared();
    String bucket = s3.createBucket();
    Path work = dir.resolve("s3");
    Files.createDirectories(work);
    String storage =
        "storage:\n  s3: { endpoint: \""
            + s3.endpoint()
            + "\", region: us-east-1, path-style: true,"
            + " access-key: \""
            + S3TestServer.ACCESS_KEY
            + "\", secret-key: \""
            + S3TestServer.SECRET_KEY
            + "\" }\n";
    CrashFixture fixture =
        new CrashFixture(
            broker,
            "orders-s3",
            work,
            "s3://" + bucket + "/tables/orders",
            "s3://" + bucket + "/tables/orders-quarantine",
            "s3://" + bucket + "/checkpoints/orders",
            storage);
    fixture.runWithKills(KILLS, new Random(7L));
    S3Settings settings = s3.settings();
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, settings);
        ObjectStore quarantine = ObjectStores.open(fixture.quarantinePath, settings)) {
      fixture.assertExactlyOnce(sink, quarantine);
    }
  }
}
