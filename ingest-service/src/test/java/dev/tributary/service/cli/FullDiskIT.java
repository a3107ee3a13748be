package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile tester's full disk of issue 20, on a real file system that really fills up: {@code
 * tributary run} in a child JVM whose sink table and checkpoint live on a 16 MB tmpfs (mounted in
 * the child's own user and mount namespace, see {@link SmallDisk}). The run is held in the middle
 * of its second batch (its write-ahead entry written, nothing else), the disk is filled, and the
 * batch goes on: its first write that needs space fails ({@code No space left on device}; today the
 * quarantine table's commit, after about 15 s of commit retries), and so do the lease's renewals
 * and release.
 *
 * <p>Expected: the batch fails before any commit (no table version, no commits entry), the run says
 * which pipeline, batch and object, and treats it as an outage (DEGRADED, restarted with backoff,
 * not an exit); once space is back the restarted run replays the batch with the same offsets and
 * every record is in the table exactly once; SIGTERM then stops it with exit code 0. A short lease
 * ({@value #LEASE}) keeps the test quick: the restarts wait for the unreleased lease to expire.
 *
 * <p>Needs unprivileged user namespaces; where the machine refuses them the test is skipped, except
 * in CI ({@code CI=true}), where it fails saying so.
 */
class FullDiskIT {
  private static final Duration SLOW = Duration.ofMinutes(1);
  private static final String PIPELINE = "full-disk";
  private static final int BATCH = 100;
  private static final String LEASE = "6s";
  private static final List<String> JVM =
      List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

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
  void aBatchThatCannotBeWrittenCommitsNothingAndIsReplayedOnceSpaceIsBack() throws Exception {
    Path mountPoint = Files.createDirectories(dir.resolve("disk"));
    boolean mountable = SmallDisk.mountable(Files.createDirectories(dir.resolve("probe")));
    String refused =
        "this machine refuses a tmpfs in an unprivileged user namespace (unshare --user"
            + " --map-root-user --mount): allow user namespaces (kernel.unprivileged_userns_clone,"
            + " the container's seccomp profile) for the full-disk test";
    // Skipped on a developer's machine that refuses it, never silently in CI.
    if ("true".equals(System.getenv("CI"))) {
      assertThat(mountable).as(refused).isTrue();
    }
    assumeTrue(mountable, refused);
    String topic = broker.createTopic("full-disk", 1);
    broker.send(topic, 0, records(0, BATCH));
    Path log = dir.resolve("run.log");
    Path armed = dir.resolve("armed");
    Path release = dir.resolve("release");
    child =
        SmallDisk.start(
            mountPoint,
            withHold(armed, release),
            List.of("run", "--pipeline", pipeline(topic, mountPoint).toString()),
            log,
            dir);
    Path disk = SmallDisk.seenFrom(child, mountPoint);
    Path checkpoint = disk.resolve("checkpoint");
    Path table = disk.resolve("table");
    Path quarantine = disk.resolve("table-quarantine");

    awaitRun("batch 0 committed", log, () -> Files.exists(commitsEntry(checkpoint, 0)));
    Files.createFile(armed);
    broker.send(topic, 0, records(BATCH, 2 * BATCH));
    awaitRun(
        "batch 1 held after its first record",
        log,
        () -> Files.readString(log).contains("hold point " + CrashPoints.MID_BATCH + ":1 reached"));
    List<String> sinkVersions = logEntries(table);
    List<String> quarantineVersions = logEntries(quarantine);
    Path filler = SmallDisk.fill(disk);
    Files.createFile(release);

    String firstFailure = "Pipeline " + PIPELINE + " failed (attempt 1), restarting in";
    awaitRun("the batch failed for want of space", log, () -> failures(log).size() >= 1);
    assertThat(failures(log).get(0))
        .as("which pipeline, batch, table and object, and why")
        .contains(firstFailure)
        .contains("Pipeline " + PIPELINE + ": batch 1 (" + topic + "/0 offsets [100, 200)) failed")
        .containsPattern("Local write of '[^']+' in " + Pattern.quote(mountPoint + "/table"))
        .contains("No space left on device")
        .doesNotContain("concurrent writers");
    assertThat(Files.readString(log)).doesNotContain("FAILED and will not be restarted");
    assertThat(checkpoint.resolve("offsets/" + batchKey(1))).as("planned").exists();
    assertThat(commitsEntry(checkpoint, 1)).as("not committed").doesNotExist();
    assertThat(logEntries(table)).as("no sink commit").isEqualTo(sinkVersions);
    assertThat(logEntries(quarantine)).as("no quarantine commit").isEqualTo(quarantineVersions);

    Files.delete(filler);
    awaitRun(
        "every record of batch 1 in the table once space is back",
        log,
        () -> Files.exists(commitsEntry(checkpoint, 1)));
    assertThat(ids(table)).as("every record once").isEqualTo(range(0, 2 * BATCH));
    assertThat(failures(log))
        .as("every failed attempt names what it could not write")
        .allSatisfy(line -> assertThat(line).contains(mountPoint.toString()));
    awaitRun(
        "the recovery is said",
        log,
        () ->
            Files.readString(log)
                .contains("Pipeline " + PIPELINE + " is RUNNING again after an outage of"));

    child.destroy(); // SIGTERM
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("stopped").isTrue();
    assertThat(child.exitValue()).as("a graceful stop; log:%n%s", tail(log)).isZero();
  }

  /** Waits for {@code condition} while the run lives; its log is shown if it exits. */
  private void awaitRun(String what, Path log, Callable<Boolean> condition) {
    await(what)
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(200))
        .failFast(
            () -> {
              if (!child.isAlive()) {
                throw new AssertionError("the run exited; its log:\n" + tail(log));
              }
            })
        .until(condition);
  }

  /** The lines in which the supervisor reports a failed attempt. */
  private static List<String> failures(Path log) throws IOException {
    return Files.readString(log)
        .lines()
        .filter(l -> l.contains("Pipeline " + PIPELINE + " failed (attempt "))
        .toList();
  }

  private static Path commitsEntry(Path checkpoint, long batchId) {
    return checkpoint.resolve("commits/" + batchKey(batchId));
  }

  private static List<String> withHold(Path armed, Path release) {
    List<String> options = new ArrayList<>(JVM);
    options.add("-Dtributary.test.hold-at=" + CrashPoints.MID_BATCH + ":1");
    options.add("-Dtributary.test.hold-armed=" + armed);
    options.add("-Dtributary.test.hold-release=" + release);
    // Its release cannot be written on the full disk, so the restarted run waits for it to expire.
    options.add("-Dtributary.checkpoint.lease-duration=" + LEASE);
    return options;
  }

  private Path pipeline(String topic, Path disk) throws IOException {
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
                disk.resolve("table"),
                disk.resolve("checkpoint")));
    return file;
  }

  private static String batchKey(long batchId) {
    return String.format("%020d", batchId);
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

  /** The table's commit files, sorted. */
  private static List<String> logEntries(Path table) throws IOException {
    try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(name -> name.endsWith(".json"))
          .sorted()
          .toList();
    }
  }

  /** The ids in the table, sorted; a record written twice shows twice. */
  private static List<Long> ids(Path table) throws IOException {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
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

  /**
   * A small tmpfs that only one child process sees: the child starts in its own user and mount
   * namespace ({@code unshare --user --map-root-user --mount}), which needs no privileges where
   * unprivileged user namespaces are allowed, mounts the tmpfs over a directory there and execs the
   * JVM. The test reaches the same file system through {@code /proc/<pid>/root}, which resolves
   * paths in the child's mount namespace. The file system goes away with the child.
   */
  private static final class SmallDisk {
    private static final String SIZE = "16m";

    /** The shell step inside the namespace: mount over {@code $0}, then exec the command. */
    private static final String MOUNT_THEN_EXEC =
        "mount -t tmpfs -o size=" + SIZE + " tributary-small-disk \"$0\" && exec \"$@\"";

    private SmallDisk() {}

    /** Whether this machine lets a plain process mount a tmpfs in a namespace of its own. */
    static boolean mountable(Path probe) throws InterruptedException {
      try {
        Process p =
            new ProcessBuilder(namespaced(probe, List.of("true")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
      } catch (IOException noUnshare) {
        return false;
      }
    }

    /** Starts {@code mainClass} of the test classpath with the small disk at {@code mountPoint}. */
    static Process start(
        Path mountPoint, List<String> jvmOptions, List<String> args, Path log, Path workDir)
        throws IOException {
      List<String> java = new ArrayList<>();
      java.add(ChildJvm.javaBinary().toString());
      java.addAll(jvmOptions);
      java.add("-cp");
      java.add(ChildJvm.classpath());
      java.add(Main.class.getName());
      java.addAll(args);
      return new ProcessBuilder(namespaced(mountPoint, java))
          .directory(workDir.toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    }

    private static List<String> namespaced(Path mountPoint, List<String> command) {
      List<String> full = new ArrayList<>();
      full.addAll(
          List.of(
              "unshare",
              "--user",
              "--map-root-user",
              "--mount",
              "sh",
              "-c",
              MOUNT_THEN_EXEC,
              mountPoint.toString()));
      full.addAll(command);
      return full;
    }

    /**
     * The small disk as this process reaches it. unshare and sh exec the JVM, so the child's pid is
     * the JVM's, in the namespace that holds the mount.
     */
    static Path seenFrom(Process child, Path mountPoint) {
      return Path.of("/proc", Long.toString(child.pid()), "root")
          .resolve(mountPoint.toString().substring(1));
    }

    /** Fills the disk until the kernel says it is full; returns the file to delete to free it. */
    static Path fill(Path disk) throws IOException {
      Path filler = disk.resolve("filler");
      byte[] chunk = new byte[64 * 1024];
      try (OutputStream out = Files.newOutputStream(filler)) {
        while (true) {
          out.write(chunk);
        }
      } catch (IOException full) {
        if (!String.valueOf(full.getMessage()).contains("No space left on device")) {
          throw full;
        }
      }
      return filler;
    }
  }
}
