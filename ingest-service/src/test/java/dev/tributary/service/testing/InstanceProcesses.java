package dev.tributary.service.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The instances of a scale-out test: child JVMs running {@code tributary run --pipeline}, each
 * logging to {@code <work>/<name>.log}, and the signals a test sends them (SIGKILL, SIGSTOP,
 * SIGCONT). {@link #close()} kills every instance still alive, resuming a frozen one first.
 *
 * <p>The work directory lives under {@code target/} rather than a temp dir so that the instances'
 * logs stay there for a look after a failure; {@link #freshWorkDirectory} empties it first.
 */
public final class InstanceProcesses implements AutoCloseable {
  /** Small heaps, one GC thread, C1 only: several instances and a broker share two cores. */
  private static final List<String> JVM =
      List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private static final String MAIN = "dev.tributary.service.cli.Main";

  private final Path work;
  private final Map<String, Process> started = new LinkedHashMap<>();

  public InstanceProcesses(Path work) {
    this.work = work;
  }

  /** {@code target/<name>} as an absolute path, emptied (the logs of an earlier run go). */
  public static Path freshWorkDirectory(String name) throws IOException {
    Path work = Path.of("target", name).toAbsolutePath();
    if (Files.exists(work)) {
      try (var files = Files.walk(work)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
    return Files.createDirectories(work);
  }

  public Path work() {
    return work;
  }

  /**
   * Starts instance {@code name}: {@code run --pipeline <pipeline>} plus {@code args} (e.g. {@code
   * --available-now}), with {@code jvmOptions} after the defaults (test hooks such as {@code
   * -Dtributary.test.hold-at=...}).
   */
  public Process start(String name, Path pipeline, List<String> jvmOptions, List<String> args)
      throws IOException {
    if (started.containsKey(name)) {
      throw new IllegalArgumentException(
          "instance " + name + " was started already; its log is " + logFile(name));
    }
    List<String> jvm = new ArrayList<>(JVM);
    jvm.addAll(jvmOptions);
    List<String> command = new ArrayList<>(List.of("run", "--pipeline", pipeline.toString()));
    command.addAll(args);
    Process p = ChildJvm.start(jvm, MAIN, command, logFile(name), work);
    started.put(name, p);
    return p;
  }

  /** Starts instance {@code name} running until it is killed. */
  public Process start(String name, Path pipeline, List<String> jvmOptions) throws IOException {
    return start(name, pipeline, jvmOptions, List.of());
  }

  public Path logFile(String name) {
    return work.resolve(name + ".log");
  }

  /** What instance {@code name} has written so far (empty before its first line). */
  public String log(String name) throws IOException {
    Path file = logFile(name);
    return Files.exists(file) ? Files.readString(file) : "";
  }

  /** The instances started so far, by name, in start order. */
  public Map<String, Process> all() {
    return Map.copyOf(started);
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}, ...) to {@code p} if it is alive. */
  public static void signal(String signal, Process p) throws IOException, InterruptedException {
    if (p.isAlive()) {
      new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor();
    }
  }

  /** SIGKILL, and waits for the process to be gone. */
  public static void kill(Process p) throws InterruptedException {
    p.destroyForcibly().waitFor();
  }

  /** Waits (at most {@code seconds}) for {@code p} to end by itself; whether it did. */
  public static boolean awaitExit(Process p, long seconds) throws InterruptedException {
    return p.waitFor(seconds, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    for (Process p : started.values()) {
      signal("CONT", p); // a frozen process cannot die of SIGKILL until the kernel schedules it
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
