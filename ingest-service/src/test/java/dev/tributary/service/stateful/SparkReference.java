package dev.tributary.service.stateful;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.testing.ChildJvm;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs real Spark (src/test/spark/SparkJudge.java) in a child JVM on its own classpath, resolved by
 * Maven from src/test/spark/pom.xml: Spark's Scala, Jackson and Netty never meet ours.
 *
 * <p>The classpath is resolved once and cached in {@code target/spark-judge/}, keyed by the pom's
 * content, so only the first run (or a changed pom) pays Maven; the judge is compiled once per
 * build into the same folder ({@link #compiledJudge}). The JVM options are exactly the ones Spark's
 * own launcher adds ({@code JavaModuleOptions} from the resolved spark-launcher jar).
 */
final class SparkReference {
  private static final Path POM = Path.of("src/test/spark/pom.xml");
  private static final Path JUDGE = Path.of("src/test/spark/SparkJudge.java");
  private static final Path CACHE = Path.of("target/spark-judge");

  /** What Maven prints when it cannot reach the repository: the only reason to skip. */
  private static final List<String> UNREACHABLE =
      List.of(
          "Could not transfer",
          "UnknownHostException",
          "Network is unreachable",
          "Connection refused",
          "Connect timed out",
          "connect timed out",
          "No route to host",
          "Temporary failure in name resolution",
          "Could not resolve host");

  private SparkReference() {}

  /** The Spark classpath, resolving it with Maven on first use; aborts the test if offline. */
  static String classpath() throws Exception {
    byte[] pom = Files.readAllBytes(POM);
    String key =
        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(pom)).substring(0, 16);
    Path cached = CACHE.resolve("spark-" + key + ".classpath");
    if (Files.exists(cached)) {
      String cp = Files.readString(cached).strip();
      if (Arrays.stream(cp.split(File.pathSeparator)).allMatch(j -> Files.exists(Path.of(j)))) {
        return cp;
      }
    }
    Files.createDirectories(CACHE);
    // names of this JVM's own: two test JVMs (Failsafe forks) may resolve at the same time
    long pid = ProcessHandle.current().pid();
    Path partial = CACHE.resolve("spark-" + key + ".classpath." + pid + ".tmp");
    Path log = CACHE.resolve("resolve-" + pid + ".log");
    List<String> command =
        new ArrayList<>(
            List.of(
                mvn(),
                "-B",
                "-f",
                POM.toAbsolutePath().toString(),
                "dependency:build-classpath",
                "-Dmdep.outputFile=" + partial.toAbsolutePath()));
    String repo = System.getProperty("tributary.test.maven.repo", "");
    if (!repo.isBlank() && !repo.startsWith("${")) {
      command.add("-Dmaven.repo.local=" + repo);
    }
    Process mvn =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!mvn.waitFor(10, TimeUnit.MINUTES)) {
      mvn.destroyForcibly().waitFor();
      throw new IllegalStateException(
          "resolving the Spark classpath ("
              + String.join(" ", command)
              + ") took over 10 minutes; see "
              + log.toAbsolutePath());
    }
    String output = Files.readString(log);
    if (mvn.exitValue() != 0) {
      boolean offline = UNREACHABLE.stream().anyMatch(output::contains);
      Assumptions.assumeFalse(
          offline,
          () ->
              "Spark differential tests skipped: the Maven repository is"
                  + " unreachable, so Spark's classpath cannot be resolved ("
                  + String.join(" ", command)
                  + "); see "
                  + log.toAbsolutePath());
      throw new IllegalStateException(
          "cannot resolve the Spark classpath with `"
              + String.join(" ", command)
              + "` (exit "
              + mvn.exitValue()
              + "):\n"
              + output);
    }
    Files.move(partial, cached, StandardCopyOption.REPLACE_EXISTING);
    return Files.readString(cached).strip();
  }

  /**
   * SparkJudge.java compiled against {@code classpath}: a folder holding its class, in {@code
   * target/spark-judge/judge-<key>/}, keyed by the source's and the classpath's content. The first
   * test JVM that needs it compiles it (javac in this JVM); a file lock keeps the other Failsafe
   * JVMs (the two Spark ITs start side by side) from compiling it too: they wait and use it. Java's
   * source launcher compiled it again at every Spark start, ~2.5 s of the judge JVM's ~7 s of CPU
   * before its first case (docs/TESTING.md, "Where the time goes").
   */
  static synchronized Path compiledJudge(String classpath) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    digest.update(Files.readAllBytes(JUDGE));
    digest.update(classpath.getBytes(StandardCharsets.UTF_8));
    String key = HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    Path classes = CACHE.resolve("judge-" + key);
    Path judgeClass = classes.resolve("SparkJudge.class");
    if (Files.exists(judgeClass)) {
      return classes;
    }
    Files.createDirectories(CACHE);
    try (FileChannel channel =
            FileChannel.open(
                CACHE.resolve("judge.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      if (Files.exists(judgeClass)) {
        return classes; // another test JVM compiled it while this one waited
      }
      // a folder of this JVM's own, renamed into place whole: a judge never sees half a compile
      Path partial = CACHE.resolve("judge-" + key + "." + ProcessHandle.current().pid() + ".tmp");
      deleteTree(partial);
      ByteArrayOutputStream output = new ByteArrayOutputStream();
      int status =
          ToolProvider.getSystemJavaCompiler()
              .run(
                  null,
                  output,
                  output,
                  "-proc:none",
                  "-nowarn",
                  "-d",
                  partial.toString(),
                  "-cp",
                  classpath,
                  JUDGE.toString());
      if (status != 0) {
        throw new IllegalStateException(
            "cannot compile "
                + JUDGE.toAbsolutePath()
                + " against the Spark classpath of "
                + POM
                + " (javac exit "
                + status
                + "):\n"
                + output.toString(StandardCharsets.UTF_8));
      }
      Files.move(partial, classes, StandardCopyOption.ATOMIC_MOVE);
    }
    return classes;
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The Maven that runs this build (failsafe passes its home), else {@code mvn} on the PATH. */
  private static String mvn() {
    String home = System.getProperty("tributary.test.maven.home", "");
    if (!home.isBlank() && !home.startsWith("${")) {
      Path bin = Path.of(home, "bin", "mvn");
      if (Files.isExecutable(bin)) {
        return bin.toString();
      }
    }
    return "mvn";
  }

  /** The JVM options Spark's launcher adds on Java 17+, read from the resolved launcher jar. */
  static List<String> moduleOptions(String classpath) throws Exception {
    URL[] launcher =
        Arrays.stream(classpath.split(File.pathSeparator))
            .filter(j -> Path.of(j).getFileName().toString().startsWith("spark-launcher_"))
            .map(
                j -> {
                  try {
                    return Path.of(j).toUri().toURL();
                  } catch (IOException e) {
                    throw new IllegalStateException(e);
                  }
                })
            .toArray(URL[]::new);
    if (launcher.length != 1) {
      throw new IllegalStateException(
          "expected one spark-launcher jar on the Spark classpath (from "
              + POM
              + "), found "
              + launcher.length);
    }
    try (URLClassLoader loader =
        new URLClassLoader(launcher, ClassLoader.getPlatformClassLoader())) {
      return List.of(
          (String[])
              loader
                  .loadClass("org.apache.spark.launcher.JavaModuleOptions")
                  .getMethod("defaultModuleOptionArray")
                  .invoke(null));
    }
  }

  /**
   * Runs the judge over {@code job} (see SparkJudge.java for its shape) in one child JVM, in {@code
   * work}; fails with the judge's log if it fails or takes over 20 minutes (a guard against a hung
   * judge: with the join cases it runs ~5 minutes on a loaded 2-core machine). The log is also kept
   * as {@code target/spark-judge/last-spark.log}.
   */
  static void run(Map<String, Object> job, Path work) throws Exception {
    start(job, work).await();
  }

  /**
   * Starts the judge over {@code job} in a child JVM and returns at once; {@link Running#await}
   * waits for it. With a {@code pause} in the job, {@link Running#awaitReady} waits until Spark
   * made its tables and {@link Running#resume} lets it read more.
   */
  static Running start(Map<String, Object> job, Path work) throws Exception {
    return start(job, work, "1g", Duration.ofMinutes(20), List.of("-XX:TieredStopAtLevel=1"));
  }

  /**
   * {@link #start(Map, Path)} with another heap ({@code -Xmx}, e.g. {@code 4g}) and time limit, for
   * benchmarks over large tables.
   */
  static Running start(Map<String, Object> job, Path work, String heap, Duration limit)
      throws Exception {
    return start(job, work, heap, limit, List.of());
  }

  /**
   * The judge with extra JVM options. The tests' judge runs with the client compiler only: its jobs
   * are short and interpreted (no code generation), and C2's compile threads took the cores Spark
   * needed (SparkDifferentialIT 159 s -> 142 s, same load). A benchmark's Spark keeps the default
   * compilers, so that the comparison is with Spark as it runs in production.
   */
  private static Running start(
      Map<String, Object> job, Path work, String heap, Duration limit, List<String> jvmOptions)
      throws Exception {
    String classpath = classpath();
    Path jobFile = work.resolve("spark-job.json");
    Files.writeString(
        jobFile,
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(job),
        StandardCharsets.UTF_8);
    List<String> command = new ArrayList<>();
    command.add(ChildJvm.javaBinary().toString());
    command.addAll(moduleOptions(classpath));
    command.addAll(jvmOptions);
    command.addAll(
        List.of(
            "-Xmx" + heap,
            "-XX:+UseSerialGC",
            "-Djava.io.tmpdir=" + Files.createDirectories(work.resolve("tmp")),
            "-cp",
            compiledJudge(classpath).toAbsolutePath() + File.pathSeparator + classpath,
            "SparkJudge",
            jobFile.toString()));
    Path log = work.resolve("spark.log");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(work.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    // loopback only: Spark would otherwise look up the host's own address
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().put("SPARK_LOCAL_HOSTNAME", "localhost");
    return new Running(pb.start(), log, limit);
  }

  /** A running judge. */
  static final class Running {
    private final Process spark;
    private final Path log;
    private final Duration limit;

    Running(Process spark, Path log, Duration limit) {
      this.spark = spark;
      this.log = log;
      this.limit = limit;
    }

    /** Waits for the {@code ready} file of the job's {@code pause}; fails if Spark ends first. */
    void awaitReady(Path ready) throws Exception {
      Awaitility.await("Spark made its tables")
          .atMost(limit)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                if (!spark.isAlive() && !Files.exists(ready)) {
                  await(); // fails with the log
                  throw new IllegalStateException("Spark ended without pausing; log: " + log);
                }
                return Files.exists(ready);
              });
    }

    /** Lets a paused judge go on: writes the {@code resume} file with more of its job. */
    void resume(Path resume, Map<String, Object> more) throws IOException {
      Path partial = resume.resolveSibling(resume.getFileName() + ".tmp");
      Files.writeString(partial, new ObjectMapper().writeValueAsString(more));
      Files.move(partial, resume, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Waits for the judge to end; fails with its log if it failed or took over its limit. */
    void await() throws Exception {
      boolean exited = spark.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        spark.destroyForcibly().waitFor();
      }
      // the temporary directory goes with the test: keep the last log where a developer looks
      Files.createDirectories(CACHE);
      Path kept = CACHE.resolve("last-spark.log").toAbsolutePath();
      // copied, then renamed: another test JVM may keep its own last log at the same moment
      Path copy = CACHE.resolve("last-spark." + ProcessHandle.current().pid() + ".tmp");
      Files.copy(log, copy, StandardCopyOption.REPLACE_EXISTING);
      Files.move(copy, kept, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      if (!exited) {
        throw new IllegalStateException(
            "Spark did not finish in " + limit + "; log: " + kept + "\n" + tail(log));
      }
      if (spark.exitValue() != 0) {
        throw new IllegalStateException(
            "Spark failed (exit " + spark.exitValue() + "); log: " + kept + "\n" + tail(log));
      }
      Files.readAllLines(log).stream()
          .filter(l -> l.startsWith("case "))
          .forEach(l -> System.out.println("Spark " + l));
    }

    /** Ends the judge (a test that failed before resuming it). */
    void kill() throws InterruptedException {
      spark.destroyForcibly().waitFor();
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
  }
}
