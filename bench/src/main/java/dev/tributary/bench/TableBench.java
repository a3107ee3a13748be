package dev.tributary.bench;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.data.DictionaryMemory;
import dev.tributary.table.data.FileStats;
import dev.tributary.table.data.PartitionedDataWriter;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The table benchmark: (1) rows/s through our table writer vs a bare parquet-hadoop writer in the
 * same run, (2) commit latency on local disk and on the S3 test server, (3) snapshot load time of a
 * long log with and without checkpoints, (4) micro-batch files of bronze-like rows written with and
 * without a {@link DictionaryMemory} (Parquet's dictionary tried on every column of every file, or
 * skipped for the columns that fell back). Prints figures and ratios; asserts nothing.
 *
 * <p>Arguments: {@code [rows (1000000)] [commits for the load test (10000)]}, or {@code
 * dictionaries} for (4) alone.
 */
public final class TableBench {
  static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("payload", PrimitiveType.STRING),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP));
  static final MessageType PARQUET =
      MessageTypeParser.parseMessageType(
          "message row { required int64 id; optional binary payload (STRING);"
              + " optional int64 ts (TIMESTAMP(MICROS,true)); }");

  private TableBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("dictionaries")) {
      dictionaryMemory(Files.createTempDirectory("table-bench"));
      return;
    }
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
    int loadCommits = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    Path work = Files.createTempDirectory("table-bench");
    System.out.printf(
        "Table benchmark, %,d rows (long + string + timestamp), work dir %s%n", rows, work);

    double bare = bareParquet(work.resolve("bare.parquet"), rows);
    double ours = tableWriter(work.resolve("table"), rows);
    bare = Math.max(bare, bareParquet(work.resolve("bare2.parquet"), rows)); // warm JIT for both
    ours = Math.max(ours, tableWriter(work.resolve("table2"), rows));
    System.out.printf(
        "write: table %,.0f rows/s, bare parquet-hadoop %,.0f rows/s, ratio %.2f (goal >= 0.9)%n",
        ours, bare, ours / bare);

    try (ObjectStore local = ObjectStores.open(work.resolve("commits").toString(), null)) {
      commitLatency("local disk", local);
    }
    try (S3TestServer s3 = S3TestServer.start();
        ObjectStore store =
            ObjectStores.open("s3://" + s3.createBucket() + "/commits", s3.settings())) {
      commitLatency("S3 test server", store);
    } catch (RuntimeException e) {
      System.out.println("commit latency on S3 skipped: " + e.getMessage());
    }

    dictionaryMemory(work.resolve("dictionaries"));

    double with = snapshotLoad(work.resolve("log-cp"), loadCommits, 10);
    double without = snapshotLoad(work.resolve("log-nocp"), loadCommits, Integer.MAX_VALUE);
    System.out.printf(
        "snapshot load, %,d commits: with checkpoints %.0f ms, without %.0f ms, ratio %.1fx%n",
        loadCommits, with, without, without / with);
  }

  static Object[] row(long i) {
    return new Object[] {
      i,
      "payload-" + (i % 10_000),
      Instant.ofEpochSecond(1_700_000_000L + i / 1000, (i % 1000) * 1000)
    };
  }

  static double bareParquet(Path file, long rows) throws IOException {
    SimpleGroupFactory factory = new SimpleGroupFactory(PARQUET);
    long start = System.nanoTime();
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withConf(new PlainParquetConfiguration())
            .withType(PARQUET)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .build()) {
      for (long i = 0; i < rows; i++) {
        Object[] r = row(i);
        Instant ts = (Instant) r[2];
        w.write(
            factory
                .newGroup()
                .append("id", i)
                .append("payload", (String) r[1])
                .append("ts", ts.getEpochSecond() * 1_000_000L + ts.getNano() / 1000));
      }
    }
    return rows / ((System.nanoTime() - start) / 1e9);
  }

  static double tableWriter(Path dir, long rows) throws IOException {
    try (ObjectStore store = ObjectStores.open(dir.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(SCHEMA, List.of(), Map.of());
      long start = System.nanoTime();
      try (AppendTransaction tx = table.newAppend(new TransactionId("bench", 0))) {
        for (long i = 0; i < rows; i++) {
          tx.write(row(i));
        }
        tx.commit(Map.of());
      }
      return rows / ((System.nanoTime() - start) / 1e9);
    }
  }

  static void commitLatency(String where, ObjectStore store) throws IOException {
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    table.create(SCHEMA, List.of(), Map.of());
    List<Long> micros = new ArrayList<>();
    for (int b = 0; b < 200; b++) {
      long start = System.nanoTime();
      try (AppendTransaction tx = table.newAppend(new TransactionId("bench", b))) {
        tx.write(row(b));
        tx.commit(Map.of());
      }
      micros.add((System.nanoTime() - start) / 1000);
    }
    Collections.sort(micros);
    System.out.printf(
        "commit latency (%s, 200 one-row commits incl. data file): median %.1f ms, p99 %.1f ms%n",
        where, micros.get(100) / 1000.0, micros.get(197) / 1000.0);
  }

  static final StructType EVENTS =
      StructType.of(
          StructField.nullable("event_id", PrimitiveType.STRING),
          StructField.nullable("event_type", PrimitiveType.STRING),
          StructField.nullable("user_id", PrimitiveType.STRING),
          StructField.nullable("amount", PrimitiveType.LONG),
          StructField.nullable("session", PrimitiveType.STRING),
          StructField.nullable("sent_us", PrimitiveType.LONG));

  /**
   * A sink's micro-batches: 40 files of 25,000 rows (what 50,000 records/s give a 500 ms trigger),
   * each written by a new writer, as each batch is; with a fresh memory per file (every dictionary
   * tried, as Parquet does) and with one memory for all, alternately, 3 rounds each. Prints the
   * writing thread's CPU time and the files' bytes.
   */
  static void dictionaryMemory(Path dir) throws IOException {
    java.lang.management.ThreadMXBean cpu =
        java.lang.management.ManagementFactory.getThreadMXBean();
    List<Object[]> batch = new ArrayList<>();
    for (int i = 0; i < 25_000; i++) {
      batch.add(
          new Object[] {
            "e-" + i,
            new String[] {"view", "click", "purchase", "refund"}[i % 4],
            "u-" + (i * 7919L % 100_000),
            i * 31L % 100_000,
            "s-" + i * 2654435761L,
            1_764_000_000_000_000L + i * 20L
          });
    }
    for (int round = 0; round < 4; round++) {
      for (boolean remember : new boolean[] {false, true}) {
        try (ObjectStore store =
            ObjectStores.open(dir.resolve(round + "-" + remember).toString(), null)) {
          DictionaryMemory memory = new DictionaryMemory();
          long bytes = 0;
          long start = cpu.getCurrentThreadCpuTime();
          for (int file = 0; file < 40; file++) {
            try (PartitionedDataWriter w =
                DataFiles.newWriter(
                    store,
                    EVENTS,
                    List.of(),
                    DataWriteOptions.defaults(),
                    remember ? memory : new DictionaryMemory())) {
              for (Object[] row : batch) {
                w.write(row);
              }
              bytes += w.finish().stream().mapToLong(DataFile::size).sum();
            }
          }
          double ms = (cpu.getCurrentThreadCpuTime() - start) / 1e6;
          System.out.printf(
              "dictionaries%s: 40 files x 25,000 rows, %s: %,.0f ms CPU, %,.0f rows/s of CPU,"
                  + " %,d bytes%n",
              round == 0 ? " (warm-up round)" : "",
              remember
                  ? "with the memory (plain: " + memory.plainColumns() + ")"
                  : "every dictionary tried",
              ms,
              40 * 25_000 / (ms / 1000),
              bytes);
        }
      }
    }
  }

  /**
   * Builds a log of {@code commits} appends (one small synthetic file each), then loads it cold.
   */
  static double snapshotLoad(Path dir, int commits, int checkpointInterval) throws IOException {
    try (ObjectStore store = ObjectStores.open(dir.toString(), null)) {
      DeltaTable writer =
          DeltaTable.open(
              store, TableOptions.defaults().withLogCheckpointInterval(checkpointInterval));
      writer.create(SCHEMA, List.of(), Map.of());
      FileStats stats = new FileStats(1, Map.of("id", 1L), Map.of("id", 1L), Map.of("id", 0L));
      for (int b = 0; b < commits; b++) {
        try (AppendTransaction tx = writer.newAppend(new TransactionId("bench", b))) {
          tx.addFiles(List.of(new DataFile("part-" + b + ".parquet", Map.of(), 100, 0, stats)));
          tx.commit(Map.of());
        }
      }
      long start = System.nanoTime();
      long version = DeltaTable.open(store, TableOptions.defaults()).snapshot().version();
      double ms = (System.nanoTime() - start) / 1e6;
      if (version != commits) {
        throw new IllegalStateException("expected version " + commits + ", loaded " + version);
      }
      return ms;
    }
  }
}
