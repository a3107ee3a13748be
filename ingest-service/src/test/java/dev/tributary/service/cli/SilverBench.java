package dev.tributary.service.cli;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The silver benchmark (issue #12, item 6; run it with {@code bench/run-silver-bench [rows]
 * [files]}): a bronze table of N rows (default 2,000,000) in several files written by our {@link
 * DeltaTable} writer, then in the same run (1) the baseline, a bare read of the snapshot's files
 * with {@link DataFiles#read} (our Parquet row iterator), and (2) a silver pipeline from YAML
 * ({@code source.delta}, a filter and a derived column, available-now) into a local Delta table
 * through the command line's entry point. Prints both rates (bronze rows per second) and their
 * ratio, twice ({@code -Dbench.rounds}, default 2): round 1 in a cold JVM, round 2 warm. In the CLI
 * package because it runs the pipeline through {@link Main#run}. Never part of the test suite:
 * timings are measured, not asserted.
 */
public final class SilverBench {
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 2);
  private static final StructType BRONZE =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("event_type", PrimitiveType.STRING),
          StructField.nullable("user_id", PrimitiveType.STRING),
          StructField.nullable("amount", PrimitiveType.LONG),
          StructField.nullable("at", PrimitiveType.TIMESTAMP));

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    int files = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    Path dir = Files.createTempDirectory("tributary-silver-bench");
    System.out.printf(
        "Silver benchmark: %,d bronze rows in %d commits, work dir %s%n", rows, files, dir);
    try {
      long writeStart = System.nanoTime();
      writeBronze(dir.resolve("bronze"), rows, files);
      System.out.printf("wrote bronze in %.1f s%n", (System.nanoTime() - writeStart) / 1e9);
      List<Double> ratios = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        System.out.printf(
            "-- round %d of %d (%s JVM)%n", round, ROUNDS, round == 1 ? "cold" : "warm");
        double baseline = baseline(dir.resolve("bronze"), rows);
        System.out.printf(
            "baseline (DataFiles.read over the snapshot's files): %,.0f rows/s%n", baseline);
        double silver = silver(dir, round, rows);
        System.out.printf(
            "silver   (source.delta, filter + derive, available-now): %,.0f bronze rows/s%n",
            silver);
        System.out.printf("ratio silver/baseline: %.2f%n", silver / baseline);
        ratios.add(silver / baseline);
      }
      System.out.printf(
          "ratios by round: %s%n", ratios.stream().map(r -> String.format("%.2f", r)).toList());
    } finally {
      try (Stream<Path> all = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static void writeBronze(Path path, int rows, int files) throws IOException {
    String[] types = {"view", "click", "purchase", "refund"};
    Random random = new Random(1);
    Instant start = Instant.parse("2026-11-01T00:00:00Z");
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable bronze = DeltaTable.open(store, TableOptions.defaults());
      bronze.create(BRONZE, List.of(), Map.of());
      long id = 0;
      for (int f = 0; f < files; f++) {
        long end = (long) rows * (f + 1) / files;
        try (AppendTransaction tx = bronze.newAppend(new TransactionId("bench-writer", f))) {
          for (; id < end; id++) {
            tx.write(
                new Object[] {
                  id,
                  types[random.nextInt(4)],
                  "u-" + random.nextInt(100_000),
                  (long) random.nextInt(100_000),
                  start.plusMillis(id * 10)
                });
          }
          tx.commit(Map.of());
        }
      }
      System.out.printf("bronze: %d data files%n", bronze.snapshot().files().size());
    }
  }

  /** A bare read of every row of the snapshot's files, touching each value. */
  private static double baseline(Path bronzePath, int rows) throws IOException {
    long start = System.nanoTime();
    long seen = 0;
    long checksum = 0;
    try (ObjectStore store = ObjectStores.open(bronzePath.toString(), null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      for (DataFile f : snapshot.files()) {
        try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
          while (it.hasNext()) {
            Object[] row = it.next();
            for (Object v : row) {
              checksum += v == null ? 0 : v.hashCode();
            }
            seen++;
          }
        }
      }
    }
    if (seen != rows) {
      throw new IllegalStateException("baseline read " + seen + " rows, expected " + rows);
    }
    if (checksum == 42) {
      System.out.println(); // keeps the reads from being optimised away
    }
    return seen / ((System.nanoTime() - start) / 1e9);
  }

  /** The silver pipeline from YAML over the whole of bronze, in a fresh sink and checkpoint. */
  private static double silver(Path dir, int round, int rows) throws IOException {
    Path roundDir = dir.resolve("round-" + round);
    Files.createDirectories(roundDir);
    Path file = roundDir.resolve("silver.yaml");
    Files.writeString(
        file,
        """
        pipeline: silver-bench
        source:
          delta: { path: %1$s/bronze }
        transform:
          - filter: "amount > 1000"
          - derive: { amount_eur: "amount / 100" }
        sink:
          delta: { path: %2$s/silver }
        checkpoint: %2$s/chk
        """
            .formatted(dir, roundDir));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    long start = System.nanoTime();
    int code =
        Main.run(
            new String[] {"run", "--pipeline", file.toString(), "--available-now"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    double seconds = (System.nanoTime() - start) / 1e9;
    if (code != 0) {
      throw new IllegalStateException("silver run failed: " + err.toString(StandardCharsets.UTF_8));
    }
    return rows / seconds;
  }
}
