package dev.tributary.service.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Starts another JVM with this test JVM's classpath, for real crash and process tests. */
public final class ChildJvm {
  /**
   * The options every child JVM gets before its caller's (which win where they differ): the client
   * compiler only, and no bytecode verification of the classpath's classes (they are javac's, from
   * this build and its dependencies). A child lives seconds to minutes, so its start-up is most of
   * its cost: on two busy cores these options cut a Kafka broker's start from 13-18 s to 5-6 s and
   * a storage format from 6 s to under 2 s (docs/TESTING.md).
   */
  public static final List<String> QUICK_START =
      List.of(
          "-XX:TieredStopAtLevel=1",
          "-XX:+UnlockDiagnosticVMOptions",
          "-XX:-BytecodeVerificationRemote");

  private ChildJvm() {}

  /** The test classpath (Surefire/Failsafe expose it; a plain JVM has java.class.path). */
  public static String classpath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  public static Path javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /**
   * Starts {@code mainClass} with {@link #QUICK_START}, the class-data sharing archive of this test
   * JVM's children of {@code mainClass} ({@link ChildClassSharing}: made by the first, mapped by
   * the others), then the given JVM options, and the arguments; stdout and stderr go to {@code
   * log}. The caller owns the process (kill it, or wait for it).
   */
  public static Process start(
      List<String> jvmOptions, String mainClass, List<String> args, Path log, Path workDir)
      throws IOException {
    return start(jvmOptions, mainClass, args, log, workDir, Map.of());
  }

  /**
   * As {@link #start(List, String, List, Path, Path)}, with {@code env} added to the environment.
   */
  public static Process start(
      List<String> jvmOptions,
      String mainClass,
      List<String> args,
      Path log,
      Path workDir,
      Map<String, String> env)
      throws IOException {
    ChildClassSharing.Started sharing = ChildClassSharing.options(mainClass, QUICK_START);
    List<String> command = new ArrayList<>();
    command.add(javaBinary().toString());
    command.addAll(QUICK_START);
    command.addAll(sharing.options());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(sharing.classpath());
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.directory(workDir.toFile());
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    Process child;
    try {
      child = pb.start();
    } catch (IOException | RuntimeException e) {
      sharing.abandoned();
      throw e;
    }
    sharing.started(child);
    return child;
  }

  /** The last 40 lines of a child's log, for a failure message; says so when there is none. */
  public static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())) + "\n";
    } catch (IOException e) {
      return "(no log: " + e + ")\n";
    }
  }

  /** A free TCP port on 127.0.0.1 (racy by nature, fine for tests). */
  public static int freePort() {
    try (var socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Distinct free TCP ports on 127.0.0.1: all sockets are held open until every port is chosen. */
  public static int[] freePorts(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress());
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } finally {
      for (var socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // the port is released either way
        }
      }
    }
  }

  static String pathSeparator() {
    return File.pathSeparator;
  }
}
