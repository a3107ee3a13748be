package dev.tributary.service.stateful;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.testing.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a Spark program of src/test/spark other than the judge (a benchmark's, e.g. {@code
 * JoinBenchSpark.java}) in a child JVM on {@link SparkReference}'s classpath and with its JVM
 * options, Spark's default compilers kept (a benchmark compares with Spark as it runs in
 * production). Public for the benchmarks of the bench package; the program reads its job (a JSON
 * object) from the file given as its one argument.
 */
public final class SparkProgram {
  private SparkProgram() {}

  /**
   * Runs {@code program} (a file name in src/test/spark; the working directory is the module's)
   * over {@code job} in {@code work} and waits for it; fails with the tail of its log ({@code
   * work/spark.log}, also kept as {@code target/spark-judge/last-spark.log}) if it fails or takes
   * longer than {@code limit}.
   *
   * @param heap the child's {@code -Xmx}, e.g. {@code 2g}
   */
  public static void run(
      String program, Map<String, Object> job, Path work, String heap, Duration limit)
      throws Exception {
    Path source = Path.of("src/test/spark").resolve(program).toAbsolutePath();
    if (!Files.exists(source)) {
      throw new IllegalArgumentException(
          "no Spark program " + source + " (run from the ingest-service folder)");
    }
    String classpath = SparkReference.classpath();
    Files.createDirectories(work);
    Path jobFile = work.resolve("spark-job.json");
    Files.writeString(
        jobFile,
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(job),
        StandardCharsets.UTF_8);
    List<String> command = new ArrayList<>();
    command.add(ChildJvm.javaBinary().toString());
    command.addAll(SparkReference.moduleOptions(classpath));
    command.addAll(
        List.of(
            "-Xmx" + heap,
            "-Djava.io.tmpdir=" + Files.createDirectories(work.resolve("tmp")),
            "-cp",
            classpath,
            source.toString(),
            jobFile.toString()));
    Path log = work.resolve("spark.log");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(work.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    // loopback only, as the judge: Spark would otherwise look up the host's own address
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().put("SPARK_LOCAL_HOSTNAME", "localhost");
    new SparkReference.Running(pb.start(), log, limit).await();
  }
}
