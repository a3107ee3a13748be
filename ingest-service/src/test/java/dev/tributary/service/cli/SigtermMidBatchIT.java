package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile tester's graceful stop in the middle of a batch (issue 20): {@code tributary run} in
 * a child JVM is held after the 50th record of its first batch (its write-ahead entry written,
 * nothing committed), gets SIGTERM there, and only then is let go. The batch must finish and
 * commit, no further batch may start, the process must exit 0, and the next run must go on with the
 * next batch: no replay, every record once.
 *
 * <p>The stops that other tests make land between batches (RunRidesOutBrokerOutageIT,
 * BrokerOutageIT: an idle run) or at a random moment (ServeEndToEndIT); this one is certain to land
 * inside a batch.
 */
class SigtermMidBatchIT {
  private static final String PIPELINE = "sigterm-mid-batch";

  /**
   * More records than one poll of the source's consumer returns ({@code max.poll.records} 10,000):
   * the held batch must poll again after the stop, so a stop that woke the consumer inside a batch
   * would cut the batch short and this test would see it.
   */
  private static final int BATCH = 12_000;

  /** The records of the next run's batch. */
  private static final int REST = 100;

  private static final int HELD_AT = 50;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private Process child;

  @AfterEach
  void stopChild() throws InterruptedException {
    if (child != null && child.isAlive()) {
      child.destroyForcibly().waitFor();
    }
  }

  @Test
  void theBatchInProgressCommitsTheRunExitsZeroAndTheNextRunGoesOnWithoutReplay() throws Exception {
    String topic = broker.createTopic(PIPELINE, 1);
    broker.send(topic, 0, records(0, BATCH + REST));
    Path file = pipeline(topic);
    Path log = dir.resolve("run.log");
    Path release = dir.resolve("release");
    child =
        ChildJvm.start(
            List.of(
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dtributary.test.hold-at=" + CrashPoints.MID_BATCH + ":" + HELD_AT,
                "-Dtributary.test.hold-release=" + release),
            Main.class.getName(),
            List.of("run", "--pipeline", file.toString()),
            log,
            dir);

    awaitLog(log, "hold point " + CrashPoints.MID_BATCH + ":" + HELD_AT + " reached");
    assertThat(entry("offsets", 0)).as("batch 0 planned").exists();
    assertThat(entry("commits", 0)).as("batch 0 not committed yet").doesNotExist();

    child.destroy(); // SIGTERM
    awaitLog(log, "tributary: SIGTERM received: stopping after the batch in progress");
    assertThat(child.isAlive()).as("waits for the held batch; log:%n%s", tail(log)).isTrue();
    Files.createFile(release);

    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("stopped; log:%n%s", tail(log)).isTrue();
    assertThat(child.exitValue()).as("a graceful stop; log:%n%s", tail(log)).isZero();
    assertThat(entry("commits", 0)).as("the held batch committed").exists();
    assertThat(entry("offsets", 1)).as("no batch after the stop").doesNotExist();
    assertThat(ids()).as("the held batch, whole").isEqualTo(range(0, BATCH));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", "--pipeline", file.toString(), "--available-now"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    String progress = out.toString(StandardCharsets.UTF_8);
    assertThat(progress)
        .as("the next run starts at batch 1")
        .contains("\"batchId\":1,\"replayed\":false")
        .doesNotContain("\"batchId\":0")
        .doesNotContain("\"replayed\":true");
    assertThat(ids()).as("every record once").isEqualTo(range(0, BATCH + REST));
  }

  private Path pipeline(String topic) throws IOException {
    Path file = dir.resolve("pipeline.yaml");
    Files.writeString(
        file,
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
        format: { json: { schema: { id: long } } }
        sink: { delta: { path: %s } }
        checkpoint: %s
        trigger: { processing-time: 200ms }
        """
            .formatted(
                PIPELINE,
                broker.bootstrapServers(),
                topic,
                BATCH,
                dir.resolve("table"),
                dir.resolve("checkpoint")));
    return file;
  }

  private void awaitLog(Path log, String line) {
    await(line)
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(200))
        .failFast(
            () -> {
              if (!child.isAlive()) {
                throw new AssertionError("the run exited; its log:\n" + tail(log));
              }
            })
        .until(() -> Files.readString(log).contains(line));
  }

  private Path entry(String folder, long batchId) {
    return dir.resolve("checkpoint").resolve(folder).resolve(String.format("%020d", batchId));
  }

  private static List<String> records(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add("{\"id\":" + i + "}");
    }
    return out;
  }

  private static List<Long> range(int from, int to) {
    return LongStream.range(from, to).boxed().toList();
  }

  /** The ids in the table, sorted; a record written twice shows twice. */
  private List<Long> ids() throws IOException {
    try (ObjectStore store = ObjectStores.open(dir.resolve("table").toString(), null)) {
      List<Long> ids = new ArrayList<>();
      for (Object[] row : TableContents.rows(store)) {
        ids.add((Long) row[0]);
      }
      ids.sort(null);
      return ids;
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())) + "\n";
    } catch (IOException e) {
      return "(no log: " + e + ")\n";
    }
  }
}
