package dev.tributary.service.bench;

import dev.tributary.service.testing.KafkaBrokerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The memory of {@code ./tributary serve} per pipeline (issue 27, item 3; run it with {@code
 * bench/run-serve-bench [counts] [events] [bronze|seed-query|mixed]}). One broker, the events of
 * {@link PipelineBench} produced once; then for each count N, one {@code serve} process with the
 * launcher's defaults over a folder of N pipeline files reading that topic (each its own table and
 * checkpoint, a 1 s processing-time trigger, {@code -Dbench.limit} offsets per trigger so every
 * pipeline works through its backlog in several batches, then idles). Measured from outside, from
 * {@code /proc}: peak RSS ({@code VmHWM}) over the whole run, and the RSS once every pipeline has
 * committed its last offsets and {@code -Dbench.settleSeconds} more have passed (the steady state
 * of an idle service). Prints one line per count and the cost of each added pipeline (the slope
 * between the smallest and the largest count). Never part of the test suite.
 */
public final class ServeFootprintBench {
  private static final long LIMIT = Long.getLong("bench.limit", 10_000);
  private static final long SETTLE_SECONDS = Long.getLong("bench.settleSeconds", 10);

  private ServeFootprintBench() {}

  /** What one serve process used. */
  private record Footprint(
      int pipelines, long peakRssMb, long steadyRssMb, long caughtUpMs, long cpuMs, String load) {}

  public static void main(String[] args) throws Exception {
    List<Integer> counts =
        Stream.of((args.length > 0 ? args[0] : "1,10,30").split(","))
            .map(String::strip)
            .map(Integer::parseInt)
            .toList();
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 40_000;
    String mix = args.length > 2 ? args[2] : "mixed";
    if (!List.of("bronze", "seed-query", "mixed").contains(mix)) {
      throw new IllegalArgumentException("the mix must be bronze, seed-query or mixed, was " + mix);
    }
    Path root = Path.of("..").toAbsolutePath().normalize();
    Path launcher = root.resolve("tributary");
    Path dir = Files.createTempDirectory("tributary-serve-bench");
    System.out.printf(
        "Serve footprint: %s pipelines (%s) over %,d events on %d partitions, %,d offsets per"
            + " trigger, load %s, work dir %s%n",
        counts, mix, events, PipelineBench.PARTITIONS, LIMIT, load(), dir);
    List<Footprint> results = new ArrayList<>();
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      broker.createTopic(PipelineBench.TOPIC, PipelineBench.PARTITIONS);
      PipelineBench.produce(broker.bootstrapServers(), events, null);
      for (int n : counts) {
        Footprint f = serve(launcher, broker.bootstrapServers(), n, mix, events, dir);
        System.out.printf(
            "%d pipelines: peak RSS %,d MB, steady RSS %,d MB, all caught up after %.1f s, CPU"
                + " %.1f s (load before: %s)%n",
            f.pipelines, f.peakRssMb, f.steadyRssMb, f.caughtUpMs / 1e3, f.cpuMs / 1e3, f.load);
        results.add(f);
      }
    }
    System.out.println();
    System.out.println("| pipelines | peak RSS MB | steady RSS MB | caught up s | CPU s | load |");
    System.out.println("|---|---|---|---|---|---|");
    for (Footprint f : results) {
      System.out.printf(
          "| %d | %,d | %,d | %.1f | %.1f | %s |%n",
          f.pipelines, f.peakRssMb, f.steadyRssMb, f.caughtUpMs / 1e3, f.cpuMs / 1e3, f.load);
    }
    if (results.size() > 1) {
      Footprint small = results.get(0);
      Footprint large = results.get(results.size() - 1);
      double added = large.pipelines - small.pipelines;
      System.out.printf(
          "%nper added pipeline (%d -> %d): peak RSS %+.1f MB, steady RSS %+.1f MB%n",
          small.pipelines,
          large.pipelines,
          (large.peakRssMb - small.peakRssMb) / added,
          (large.steadyRssMb - small.steadyRssMb) / added);
    }
  }

  private static Footprint serve(
      Path launcher, String bootstrap, int n, String mix, int events, Path dir) throws Exception {
    String load = load();
    Path base = dir.resolve("serve-" + n);
    Path pipelines = Files.createDirectories(base.resolve("pipelines"));
    List<Path> checkpoints = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      boolean bronze = mix.equals("bronze") || (mix.equals("mixed") && i % 2 == 0);
      Path checkpoint = base.resolve("checkpoints/p-" + i);
      checkpoints.add(checkpoint);
      Files.writeString(
          pipelines.resolve("p-" + i + ".yaml"),
          pipelineYaml(
              "bench-serve-" + i, bronze, bootstrap, base.resolve("tables/p-" + i), checkpoint));
    }
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    long start = System.nanoTime();
    Process p =
        new ProcessBuilder(
                launcher.toString(),
                "serve",
                "--pipelines-dir",
                pipelines.toString(),
                "--port",
                Integer.toString(port))
            .redirectOutput(base.resolve("serve.out").toFile())
            .redirectError(base.resolve("serve.err").toFile())
            .start();
    try {
      long caughtUpMs = -1;
      long settledAt = Long.MAX_VALUE;
      long peakKb = 0;
      long rssKb = 0;
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
      while (System.nanoTime() < settledAt) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "serve exited "
                  + p.exitValue()
                  + " with "
                  + n
                  + " pipelines: "
                  + tail(base.resolve("serve.err")));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(n + " pipelines did not catch up in 15 minutes");
        }
        long[] mem = memoryKb(p.pid());
        rssKb = mem[0];
        peakKb = Math.max(peakKb, mem[1]);
        if (caughtUpMs < 0 && checkpoints.stream().allMatch(c -> caughtUp(c, events))) {
          caughtUpMs = (System.nanoTime() - start) / 1_000_000;
          settledAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
        }
        Thread.sleep(50);
      }
      long cpuMs = cpuMs(p.pid());
      return new Footprint(n, peakKb >> 10, rssKb >> 10, caughtUpMs, cpuMs, load);
    } finally {
      p.destroy();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  private static String pipelineYaml(
      String name, boolean bronze, String bootstrap, Path table, Path checkpoint) {
    String format =
        bronze
            ? """
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
              """
            : """
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
              """;
    return """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: %d
        %strigger: { processing-time: 1s }
        sink:
          delta:
            path: %s
        checkpoint: %s
        """
        .formatted(name, bootstrap, PipelineBench.TOPIC, LIMIT, format, table, checkpoint);
  }

  /**
   * Whether the checkpoint's committed batches have read every event: the sum, over its latest
   * offsets-log entry whose batch is committed, of the end offsets of the topic's partitions.
   * Offsets-log entries are JSON with the partitions' end offsets; a cheap textual read is enough
   * here since the benchmark only needs to know when the backlog is done.
   */
  private static boolean caughtUp(Path checkpoint, int events) {
    Path commits = checkpoint.resolve("commits");
    Path offsets = checkpoint.resolve("offsets");
    if (!Files.isDirectory(commits) || !Files.isDirectory(offsets)) {
      return false;
    }
    try (Stream<Path> files = Files.list(commits)) {
      String last =
          files
              .map(f -> f.getFileName().toString())
              .filter(f -> !f.isEmpty() && f.chars().allMatch(Character::isDigit))
              .max(java.util.Comparator.comparingLong(Long::parseLong))
              .orElse(null);
      if (last == null) {
        return false;
      }
      String entry = Files.readString(offsets.resolve(last));
      return endOffsetsSum(entry) >= events;
    } catch (IOException | RuntimeException notYet) {
      return false;
    }
  }

  /** The sum of the numbers after {@code "end":} in an offsets-log entry. */
  private static long endOffsetsSum(String entry) {
    long sum = 0;
    int at = entry.indexOf("\"end\":");
    while (at >= 0) {
      int i = at + "\"end\":".length();
      int j = i;
      while (j < entry.length() && Character.isDigit(entry.charAt(j))) {
        j++;
      }
      sum += Long.parseLong(entry.substring(i, j));
      at = entry.indexOf("\"end\":", j);
    }
    return sum;
  }

  /** VmRSS and VmHWM of a process, in kB. */
  private static long[] memoryKb(long pid) {
    long rss = 0;
    long hwm = 0;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
        } else if (line.startsWith("VmHWM:")) {
          hwm = Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException ended) {
      // the process ended between two reads: the caller notices
    }
    return new long[] {rss, hwm};
  }

  /** User + system CPU of a process and its waited-for children, in ms. */
  private static long cpuMs(long pid) throws IOException {
    String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
    long ticks = 0;
    for (int i = 11; i <= 14; i++) {
      ticks += Long.parseLong(f[i]);
    }
    return ticks * 10; // USER_HZ is 100 on Linux
  }

  private static String tail(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }

  private static String load() {
    try {
      String[] avg = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return avg[0] + " " + avg[1] + " " + avg[2];
    } catch (IOException e) {
      return "unknown";
    }
  }
}
