package dev.tributary.service.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.compare.CompareOptions;
import dev.tributary.service.compare.ComparedTable;
import dev.tributary.service.compare.ComparisonResult;
import dev.tributary.service.compare.Comparisons;
import dev.tributary.service.compare.TableRef;
import dev.tributary.service.stateful.SparkProgram;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * Tributary against the consume + parse ceiling and Spark, side by side (issue 27; run it with
 * {@code bench/run-spark-bench [events] [bronze|seed-query|both]}). One broker process, the events
 * of {@link PipelineBench} (JSON of ~200 bytes, 4 partitions) produced once, then one after the
 * other, each in a child process of its own:
 *
 * <ol>
 *   <li>the ceiling ({@link CeilingLoop}: a bare KafkaConsumer + Jackson streaming parse) with the
 *       launcher's JVM options;
 *   <li>Tributary exactly as a user runs it: {@code ./tributary run --pipeline FILE
 *       --available-now}, the launcher's defaults (heap, GC, class-data sharing) and whatever
 *       {@code TRIBUTARY_*} variables this process was given;
 *   <li>Spark 4 + Delta 4 ({@code src/test/spark/IngestBenchSpark.java}, {@code local[2]}, Spark's
 *       Kafka source, available-now) with the same query written as a Spark user writes it ({@code
 *       -Dbench.oursOnly=true} skips it).
 * </ol>
 *
 * <p>All read 200,000 offsets per trigger ({@code -Dbench.limit}). Measured from outside: wall time
 * (the process's start to its end; Spark's: its JVM's start to the query's end), launch to first
 * commit (the process's start to the first entry of the checkpoint's {@code commits/} folder,
 * polled every 5 ms), processing (the first batch's start to the last batch's end, from the
 * progress records), peak RSS ({@code VmHWM} of the process) and CPU time (user + system of the
 * process and its waited-for children). Prints a table with the ratios to the ceiling and to Spark
 * and the load average at each step, then compares our tables with Spark's ({@code tributary
 * compare}'s code). Never part of the test suite: timings are measured, not asserted.
 */
public final class IngestBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long LIMIT = Long.getLong("bench.limit", 200_000);
  private static final String SPARK_HEAP = System.getProperty("bench.sparkHeap", "2g");

  /** The launcher's JVM options (./tributary), for the ceiling's child. */
  private static final List<String> LAUNCHER_JVM =
      List.of("-Xmx512m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError");

  private IngestBench() {}

  /** One line of the table. */
  private record Row(
      String engine,
      String variant,
      long wallMs,
      long processingMs,
      long firstCommitMs,
      long peakRssMb,
      long cpuMs,
      long rowsOut,
      String load) {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    String mode = args.length > 1 ? args[1] : "both";
    List<String> variants =
        switch (mode) {
          case "bronze", "startup" -> List.of("bronze");
          case "seed-query" -> List.of("seed-query");
          case "both" -> List.of("bronze", "seed-query");
          default ->
              throw new IllegalArgumentException(
                  "mode must be bronze, seed-query, both or startup, was " + mode);
        };
    boolean oursOnly = Boolean.getBoolean("bench.oursOnly");
    // the script runs this from the ingest-service folder (SparkProgram needs it)
    Path root = Path.of("..").toAbsolutePath().normalize();
    Path launcher = root.resolve("tributary");
    Path dir = Files.createTempDirectory("tributary-ingest-bench");
    System.out.printf(
        "Ingest benchmark: %,d events on %d partitions, %,d offsets per trigger, %s%s, load %s,"
            + " work dir %s%n",
        events,
        PipelineBench.PARTITIONS,
        LIMIT,
        variants,
        oursOnly ? " (Tributary only)" : " against Spark",
        load(),
        dir);
    List<Row> rows = new ArrayList<>();
    Map<String, Path> ourTables = new LinkedHashMap<>();
    Map<String, Path> sparkTables = new LinkedHashMap<>();
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      long produceStart = System.nanoTime();
      broker.createTopic(PipelineBench.TOPIC, PipelineBench.PARTITIONS);
      long bytes = PipelineBench.produce(broker.bootstrapServers(), events, null);
      System.out.printf(
          "produced %,d events (%,d bytes, %.0f bytes/event) in %.1f s%n",
          events, bytes, (double) bytes / events, (System.nanoTime() - produceStart) / 1e9);
      warmLauncher(launcher, dir);
      if (mode.equals("startup")) {
        startup(launchers(launcher), broker.bootstrapServers(), events, dir);
        return;
      }

      rows.add(ceiling(broker.bootstrapServers(), events, dir));
      for (String variant : variants) {
        Path table = dir.resolve("tables/ours-" + variant);
        rows.add(ours(launcher, broker.bootstrapServers(), variant, events, dir, table));
        ourTables.put(variant, table);
      }
      if (!oursOnly) {
        for (String variant : variants) {
          Path table = dir.resolve("tables/spark-" + variant);
          rows.add(spark(broker.bootstrapServers(), variant, events, dir, table));
          sparkTables.put(variant, table);
        }
      }
      printTable(rows);
      for (String variant : sparkTables.keySet()) {
        compare(variant, ourTables.get(variant), sparkTables.get(variant));
      }
    } finally {
      deleteRecursively(dir);
    }
  }

  /**
   * Runs the launcher once before any measurement ({@code --help}): it builds the jar if the
   * sources changed and makes its class-data-sharing archive, neither of which a user pays per run.
   */
  private static void warmLauncher(Path launcher, Path dir) throws Exception {
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(launcher.toString(), "--help")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("launcher-warm-up.log").toFile())
            .start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(
          "./tributary --help failed: " + Files.readString(dir.resolve("launcher-warm-up.log")));
    }
    System.out.printf(
        "launcher ready (jar and class-data-sharing archive) in %.1f s%n",
        (System.nanoTime() - start) / 1e9);
  }

  private static Row ceiling(String bootstrap, int events, Path dir) throws Exception {
    String load = load();
    List<String> command = new ArrayList<>();
    command.add(ChildJvm.javaBinary().toString());
    command.addAll(LAUNCHER_JVM);
    command.addAll(
        List.of(
            "-cp",
            ChildJvm.classpath(),
            CeilingLoop.class.getName(),
            bootstrap,
            PipelineBench.TOPIC,
            String.valueOf(PipelineBench.PARTITIONS),
            String.valueOf(events)));
    Path out = dir.resolve("ceiling.out");
    Watched w =
        watch(
            new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(dir.resolve("ceiling.err").toFile()),
            null);
    if (w.exit != 0) {
      throw new IllegalStateException(
          "the ceiling failed: " + Files.readString(dir.resolve("ceiling.err")));
    }
    JsonNode result = JSON.readTree(Files.readString(out));
    Row row =
        new Row(
            "consume + parse ceiling",
            "bronze",
            w.wallMs,
            result.get("processingMs").asLong(),
            -1,
            w.peakRssKb >> 10,
            w.cpuMs,
            result.get("records").asLong(),
            load);
    print(row);
    return row;
  }

  /** The bronze pipeline: every field of the events as they are, JSON to Delta. */
  private static final String BRONZE =
      """
      pipeline: bench-bronze
      source:
        kafka:
          bootstrap-servers: %s
          topics: [%s]
          max-offsets-per-trigger: %d
      format:
        json:
          schema:
            event_id: string
            event_type: string
            event_ts: timestamp
            user_id: string
            amount: long
            currency: string
            page: string
            session: string
      sink:
        delta:
          path: %s
      checkpoint: %s
      """;

  /** PipelineBench's seed query: watermark + dedup + 5-minute windows, append. */
  private static final String SEED_QUERY =
      """
      pipeline: bench-seed-query
      source:
        kafka:
          bootstrap-servers: %s
          topics: [%s]
          max-offsets-per-trigger: %d
      format:
        json:
          schema:
            event_id: string
            event_type: string
            event_ts: timestamp
            amount: long
      watermark: { column: event_ts, delay: 10 minutes }
      deduplicate: { keys: [event_id, event_ts] }
      aggregate:
        window: { column: event_ts, size: 5 minutes }
        group-by: [event_type]
        measures:
          events: count()
          amount: sum(amount)
      output-mode: append
      sink:
        delta:
          path: %s
      checkpoint: %s
      """;

  private static Row ours(
      Path launcher, String bootstrap, String variant, int events, Path dir, Path table)
      throws Exception {
    String load = load();
    Files.createDirectories(dir);
    Path checkpoint = dir.resolve("checkpoints/ours-" + variant);
    String yaml =
        (variant.equals("bronze") ? BRONZE : SEED_QUERY)
            .formatted(bootstrap, PipelineBench.TOPIC, LIMIT, table, checkpoint);
    Path file = dir.resolve("ours-" + variant + ".yaml");
    Files.writeString(file, yaml);
    Path out = dir.resolve("ours-" + variant + ".out");
    Path err = dir.resolve("ours-" + variant + ".err");
    Watched w =
        watch(
            new ProcessBuilder(
                    launcher.toString(), "run", "--pipeline", file.toString(), "--available-now")
                .redirectOutput(out.toFile())
                .redirectError(err.toFile()),
            checkpoint.resolve("commits"));
    if (w.exit != 0) {
      throw new IllegalStateException(
          "./tributary run exited " + w.exit + ": " + Files.readString(err));
    }
    // stdout is not a terminal: one JSON progress record per batch
    long read = 0;
    long rowsOut = 0;
    Instant firstStart = null;
    Instant lastEnd = null;
    List<JsonNode> batches = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      if (!line.startsWith("{")) {
        continue;
      }
      JsonNode b = JSON.readTree(line);
      batches.add(b);
      read += b.path("inputRows").asLong();
      rowsOut += b.path("outputRows").asLong();
      Instant started = Instant.parse(b.get("startedAt").asText());
      Instant ended = started.plusMillis(b.path("durationMs").asLong());
      firstStart = firstStart == null ? started : firstStart;
      lastEnd = lastEnd == null || ended.isAfter(lastEnd) ? ended : lastEnd;
    }
    if (read != events) {
      throw new IllegalStateException("Tributary read " + read + " records, expected " + events);
    }
    for (JsonNode b : batches) {
      System.out.printf(
          "  batch %d: %,d rows in, %,d out, %,d ms %s%n",
          b.path("batchId").asLong(),
          b.path("inputRows").asLong(),
          b.path("outputRows").asLong(),
          b.path("durationMs").asLong(),
          b.path("phasesMs"));
    }
    // -Dtributary.startup.trace in TRIBUTARY_JAVA_OPTS: the start-up's steps, on stderr
    Files.readAllLines(err).stream()
        .filter(l -> l.startsWith("tributary startup"))
        .forEach(l -> System.out.println("  " + l));
    Row row =
        new Row(
            "Tributary",
            variant,
            w.wallMs,
            Duration.between(firstStart, lastEnd).toMillis(),
            w.firstCommitMs,
            w.peakRssKb >> 10,
            w.cpuMs,
            rowsOut,
            load);
    print(row);
    return row;
  }

  private static final String BRONZE_DDL =
      "event_id STRING, event_type STRING, event_ts TIMESTAMP, user_id STRING, amount BIGINT,"
          + " currency STRING, page STRING, session STRING";
  private static final String SEED_DDL =
      "event_id STRING, event_type STRING, event_ts TIMESTAMP, amount BIGINT";

  private static Row spark(String bootstrap, String variant, int events, Path dir, Path table)
      throws Exception {
    String load = load();
    Path checkpoint = dir.resolve("checkpoints/spark-" + variant);
    Path result = dir.resolve("spark-" + variant + "-result.json");
    Map<String, Object> job = new LinkedHashMap<>();
    job.put("bootstrap", bootstrap);
    job.put("topic", PipelineBench.TOPIC);
    job.put("schema", variant.equals("bronze") ? BRONZE_DDL : SEED_DDL);
    job.put("maxOffsetsPerTrigger", LIMIT);
    job.put("variant", variant);
    job.put("table", table.toString());
    job.put("checkpoint", checkpoint.toString());
    job.put("shufflePartitions", 2);
    job.put("result", result.toString());
    CompletableFuture<Void> run =
        CompletableFuture.runAsync(
            () -> {
              try {
                SparkProgram.run(
                    "IngestBenchSpark.java",
                    job,
                    dir.resolve("spark-work-" + variant),
                    SPARK_HEAP,
                    Duration.ofMinutes(60));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    // the first commit is seen from here, as ours; the JVM's start comes in the result
    long firstCommitAt = -1;
    Path commits = checkpoint.resolve("commits");
    while (!run.isDone()) {
      if (firstCommitAt < 0 && hasEntry(commits)) {
        firstCommitAt = System.currentTimeMillis();
      }
      Thread.sleep(5);
    }
    run.join();
    JsonNode r = JSON.readTree(result.toFile());
    if (r.get("inputRows").asLong() != events) {
      throw new IllegalStateException(
          "Spark read " + r.get("inputRows") + " records, expected " + events);
    }
    r.get("batchLines").forEach(l -> System.out.println("  " + l.asText()));
    long jvmStart = r.get("jvmStartEpochMs").asLong();
    Row row =
        new Row(
            "Spark 4.0 + Delta 4.0",
            variant,
            r.get("endEpochMs").asLong() - jvmStart,
            r.get("endEpochMs").asLong() - r.get("firstBatchStartEpochMs").asLong(),
            firstCommitAt < 0 ? -1 : firstCommitAt - jvmStart,
            r.get("peakRssKb").asLong() >> 10,
            r.get("cpuMs").asLong(),
            r.get("outputRows").asLong(),
            load);
    print(row);
    return row;
  }

  /**
   * {@code -Dbench.launchers=A,B}: the launchers to compare in the startup mode (default this
   * repository's); each is warmed up first.
   */
  private static List<Path> launchers(Path ours) throws Exception {
    String list = System.getProperty("bench.launchers", "");
    if (list.isBlank()) {
      return List.of(ours);
    }
    List<Path> out = new ArrayList<>();
    for (String l : list.split(",")) {
      Path launcher = Path.of(l.strip()).toAbsolutePath();
      if (!launcher.equals(ours)) {
        warmLauncher(launcher, Files.createTempDirectory("tributary-launcher-warm-up"));
      }
      out.add(launcher);
    }
    return out;
  }

  /**
   * The startup mode ({@code bench/run-spark-bench EVENTS startup}): the bronze pipeline run {@code
   * -Dbench.startupRuns} times (default 5) with each launcher, the launchers alternating run by
   * run, each run on a new checkpoint and table; prints every run and the medians per launcher.
   */
  private static void startup(List<Path> launchers, String bootstrap, int events, Path dir)
      throws Exception {
    int runs = Integer.getInteger("bench.startupRuns", 5);
    Map<Path, List<Row>> results = new LinkedHashMap<>();
    for (int i = 0; i < runs; i++) {
      for (int l = 0; l < launchers.size(); l++) {
        Path launcher = launchers.get(l);
        Path table = dir.resolve("tables/run-" + i + "-" + l);
        Row row =
            ours(launcher, bootstrap, "bronze", events, dir.resolve("run-" + i + "-" + l), table);
        System.out.printf("  (launcher %s, run %d)%n", launcher, i + 1);
        results.computeIfAbsent(launcher, k -> new ArrayList<>()).add(row);
      }
    }
    System.out.println();
    System.out.println(
        "| launcher | runs | launch → first commit s (median) | wall s (median) | processing s"
            + " (median) | CPU s (median) | peak RSS MB (median) | launch → first commit s (each) |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (Map.Entry<Path, List<Row>> e : results.entrySet()) {
      List<Row> rs = e.getValue();
      System.out.printf(
          "| %s | %d | %.2f | %.2f | %.2f | %.2f | %d | %s |%n",
          e.getKey(),
          rs.size(),
          median(rs.stream().mapToLong(Row::firstCommitMs).toArray()) / 1e3,
          median(rs.stream().mapToLong(Row::wallMs).toArray()) / 1e3,
          median(rs.stream().mapToLong(Row::processingMs).toArray()) / 1e3,
          median(rs.stream().mapToLong(Row::cpuMs).toArray()) / 1e3,
          median(rs.stream().mapToLong(Row::peakRssMb).toArray()),
          rs.stream().map(r -> String.format("%.2f", r.firstCommitMs / 1e3)).toList());
    }
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** What {@link #watch} saw of a child process. */
  private record Watched(int exit, long wallMs, long firstCommitMs, long peakRssKb, long cpuMs) {}

  /**
   * Starts the process and polls it until it ends: its peak RSS and CPU time (from /proc; the last
   * reading before its end) and, if {@code commits} is given, when an entry first appears there.
   */
  private static Watched watch(ProcessBuilder builder, Path commits) throws Exception {
    long start = System.nanoTime();
    Process p = builder.start();
    Path status = Path.of("/proc/" + p.pid() + "/status");
    Path stat = Path.of("/proc/" + p.pid() + "/stat");
    long firstCommit = -1;
    long rssKb = -1;
    long cpuMs = -1;
    while (p.isAlive()) {
      if (commits != null && firstCommit < 0 && hasEntry(commits)) {
        firstCommit = (System.nanoTime() - start) / 1_000_000;
      }
      try {
        for (String line : Files.readAllLines(status)) {
          if (line.startsWith("VmHWM:")) {
            rssKb = Math.max(rssKb, Long.parseLong(line.replaceAll("[^0-9]", "")));
          }
        }
        // fields after the command's ")": utime, stime, cutime, cstime are the 12th-15th
        String s = Files.readString(stat);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        long ticks = 0;
        for (int i = 11; i <= 14; i++) {
          ticks += Long.parseLong(f[i]);
        }
        cpuMs = ticks * 10; // USER_HZ is 100 on Linux
      } catch (IOException | RuntimeException ended) {
        // the process ended between isAlive and the read
      }
      Thread.sleep(5);
    }
    int exit = p.waitFor();
    return new Watched(exit, (System.nanoTime() - start) / 1_000_000, firstCommit, rssKb, cpuMs);
  }

  /** Whether a commits folder holds an entry (not a temporary file of the writer). */
  private static boolean hasEntry(Path commits) {
    if (!Files.isDirectory(commits)) {
      return false;
    }
    try (Stream<Path> files = Files.list(commits)) {
      return files.anyMatch(
          f ->
              !f.getFileName().toString().startsWith(".")
                  && !f.getFileName().toString().endsWith(".tmp"));
    } catch (IOException e) {
      return false;
    }
  }

  private static void print(Row r) {
    System.out.printf(
        "%s %s: wall %.1f s, processing %.1f s, launch -> first commit %s, peak RSS %,d MB, CPU"
            + " %.1f s, %,d rows out (load before: %s)%n",
        r.engine,
        r.variant,
        r.wallMs / 1e3,
        r.processingMs / 1e3,
        r.firstCommitMs < 0 ? "-" : String.format("%.1f s", r.firstCommitMs / 1e3),
        r.peakRssMb,
        r.cpuMs / 1e3,
        r.rowsOut,
        r.load);
  }

  /** The table of the issue, with each row's wall time against the ceiling's and Spark's. */
  private static void printTable(List<Row> rows) {
    Row ceiling = rows.get(0);
    System.out.println();
    System.out.println(
        "| engine | variant | wall s | processing s | launch → first commit s | peak RSS MB | CPU s"
            + " | ceiling wall / wall | Spark wall / wall | load (1, 5, 15 min) |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (Row r : rows) {
      Optional<Row> spark =
          rows.stream()
              .filter(s -> s.engine.startsWith("Spark") && s.variant.equals(r.variant))
              .findFirst();
      System.out.printf(
          "| %s | %s | %.1f | %.1f | %s | %,d | %.1f | %.2f | %s | %s |%n",
          r.engine,
          r.variant,
          r.wallMs / 1e3,
          r.processingMs / 1e3,
          r.firstCommitMs < 0 ? "–" : String.format("%.1f", r.firstCommitMs / 1e3),
          r.peakRssMb,
          r.cpuMs / 1e3,
          (double) ceiling.wallMs / r.wallMs,
          spark.map(s -> String.format("%.1fx", (double) s.wallMs / r.wallMs)).orElse("–"),
          r.load);
    }
    System.out.println();
  }

  /** Whether our table and Spark's hold the same rows as multisets; prints the comparison. */
  private static void compare(String variant, Path ours, Path spark) {
    long start = System.nanoTime();
    try (ComparedTable a = ComparedTable.open(TableRef.parse(ours.toString()), null);
        ComparedTable b = ComparedTable.open(TableRef.parse(spark.toString()), null)) {
      ComparisonResult r =
          Comparisons.compare(a, b, List.of(), Optional.empty(), CompareOptions.defaults());
      System.out.printf(
          "%s: Tributary's table against Spark's (multisets, every column): %s; rows %,d and %,d;"
              + " only in Tributary's %,d, only in Spark's %,d (%,d ms)%n",
          variant,
          r.equal() ? "EQUAL" : "DIFFERENT",
          r.rowsA(),
          r.rowsB(),
          r.onlyInA(),
          r.onlyInB(),
          (System.nanoTime() - start) / 1_000_000);
      r.samplesOnlyInA().forEach(row -> System.out.println("  only in Tributary's: " + row));
      r.samplesOnlyInB().forEach(row -> System.out.println("  only in Spark's: " + row));
    } catch (Exception e) {
      System.out.printf("%s: the tables could not be compared: %s%n", variant, e.getMessage());
    }
  }

  /** The one-, five- and fifteen-minute load averages of the machine. */
  private static String load() {
    try {
      String[] avg = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return avg[0] + " " + avg[1] + " " + avg[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
