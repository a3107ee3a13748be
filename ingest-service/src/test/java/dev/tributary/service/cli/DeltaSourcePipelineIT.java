package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Medallion pipelines from YAML through the command line, on local disk: bronze is written with our
 * DeltaTable writer; a silver pipeline file ({@code source.delta} over bronze) runs available-now
 * twice with bronze commits in between, and a stateful gold pipeline over silver counts rows per
 * hour (tumbling window, append mode).
 */
class DeltaSourcePipelineIT {
  static final StructType BRONZE =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("name", PrimitiveType.STRING),
          StructField.nullable("at", PrimitiveType.TIMESTAMP));
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path dir;
  ObjectStore bronzeStore;
  DeltaTable bronze;
  private ByteArrayOutputStream out = new ByteArrayOutputStream();
  private ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void createBronze() throws IOException {
    bronzeStore = ObjectStores.open(dir.resolve("bronze").toString(), null);
    bronze = DeltaTable.open(bronzeStore, TableOptions.defaults());
    bronze.create(BRONZE, List.of(), Map.of());
  }

  @AfterEach
  void close() throws IOException {
    bronzeStore.close();
  }

  private int run(String... args) {
    out = new ByteArrayOutputStream();
    err = new ByteArrayOutputStream();
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** Row {@code id} happens at T0 + 10 minutes per id: six per hour. */
  private static Instant at(long id) {
    return T0.plus(Duration.ofMinutes(10 * id));
  }

  private void append(long batch, long from, long to) throws IOException {
    try (AppendTransaction tx = bronze.newAppend(new TransactionId("bronze-writer", batch))) {
      for (long id = from; id < to; id++) {
        tx.write(new Object[] {id, "name-" + id, at(id)});
      }
      tx.commit(Map.of());
    }
  }

  private Path silverFile() throws IOException {
    return write(
        "silver.yaml",
        """
        pipeline: silver
        source:
          delta:
            path: %1$s/bronze
            max-files-per-trigger: 1
        transform:
          - filter: "id >= 0"
          - derive: { id_times_two: "id * 2" }
        sink:
          delta: { path: %1$s/silver }
        checkpoint: %1$s/chk/silver
        """
            .formatted(dir));
  }

  private Path goldFile() throws IOException {
    return write(
        "gold.yaml",
        """
        pipeline: gold
        source:
          delta: { path: %1$s/silver }
        watermark: { column: at, delay: 1 minute }
        aggregate:
          window: { column: at, size: 1 hour }
          measures: { n: count() }
        output-mode: append
        sink:
          delta: { path: %1$s/gold }
        checkpoint: %1$s/chk/gold
        """
            .formatted(dir));
  }

  private Path write(String name, String yaml) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, yaml);
    return file;
  }

  private List<Object[]> rows(String table) throws IOException {
    try (ObjectStore store = ObjectStores.open(dir.resolve(table).toString(), null)) {
      DeltaTable t = DeltaTable.open(store, TableOptions.defaults());
      Snapshot snapshot = t.snapshot();
      List<Object[]> rows = new ArrayList<>();
      for (DataFile f : snapshot.files()) {
        try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
          it.forEachRemaining(rows::add);
        }
      }
      return rows;
    }
  }

  private List<Long> silverIds() throws IOException {
    List<Long> ids = new ArrayList<>();
    for (Object[] row : rows("silver")) {
      assertThat(row).hasSize(4);
      long id = (Long) row[0];
      assertThat(row[1]).isEqualTo("name-" + id);
      assertThat(row[2]).isEqualTo(at(id));
      assertThat(row[3]).isEqualTo(id * 2);
      ids.add(id);
    }
    ids.sort(null);
    return ids;
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long i = from; i < to; i++) {
      ids.add(i);
    }
    return ids;
  }

  /**
   * The batch computation of gold over ids {@code [0, to)}: rows per hour, for the windows the
   * watermark (the latest event time minus a minute) has closed.
   */
  private static Map<Instant, Long> expectedGold(long to) {
    Instant watermark = at(to - 1).minus(Duration.ofMinutes(1));
    Map<Instant, Long> counts = new TreeMap<>();
    for (long id = 0; id < to; id++) {
      Instant start = T0.plus(Duration.ofHours(Duration.between(T0, at(id)).toHours()));
      if (!start.plus(Duration.ofHours(1)).isAfter(watermark)) {
        counts.merge(start, 1L, Long::sum);
      }
    }
    return counts;
  }

  private Map<Instant, Long> gold() throws IOException {
    Map<Instant, Long> counts = new TreeMap<>();
    for (Object[] row : rows("gold")) {
      assertThat(counts.put((Instant) row[0], (Long) row[2]))
          .as("window %s written once", row[0])
          .isNull();
      assertThat(row[1]).isEqualTo(((Instant) row[0]).plus(Duration.ofHours(1)));
    }
    return counts;
  }

  @Test
  void silverFromYamlHoldsBronzeOnceAndGoldCountsItsWindows() throws Exception {
    append(0, 0, 10);
    append(1, 10, 20);
    assertThat(run("run", "--pipeline", silverFile().toString(), "--available-now"))
        .as(err())
        .isZero();
    assertThat(silverIds()).isEqualTo(range(0, 20));
    assertThat(run("run", "--pipeline", goldFile().toString(), "--available-now"))
        .as(err())
        .isZero();
    assertThat(gold()).isEqualTo(expectedGold(20)).isNotEmpty();

    append(2, 20, 35);
    append(3, 35, 40);
    assertThat(run("run", "--pipeline", silverFile().toString(), "--available-now"))
        .as(err())
        .isZero();
    assertThat(silverIds()).isEqualTo(range(0, 40));
    assertThat(run("run", "--pipeline", silverFile().toString(), "--available-now"))
        .as(err())
        .isZero();
    assertThat(silverIds()).as("nothing new: nothing added").isEqualTo(range(0, 40));

    assertThat(run("run", "--pipeline", goldFile().toString(), "--available-now"))
        .as(err())
        .isZero();
    assertThat(gold()).isEqualTo(expectedGold(40));
  }

  @Test
  void validatePrintsTheDeltaSourceAndLeavesTheSchemaToTheStart() throws Exception {
    assertThat(run("validate", silverFile().toString())).as(err()).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "delta "
                + dir
                + "/bronze, the files each new commit adds, from version earliest, at most 1 files")
        .contains("schema: the table's, read at start")
        .contains("the source table's columns, then id_times_two");
  }

  @Test
  void aColumnTheTableLacksIsNamedAtStart() throws Exception {
    append(0, 0, 3);
    Path file =
        write(
            "bad.yaml",
            """
        pipeline: bad
        source:
          delta: { path: %1$s/bronze }
        deduplicate: { keys: [customer_id] }
        sink:
          delta: { path: %1$s/bad }
        checkpoint: %1$s/chk/bad
        """
                .formatted(dir));
    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(run("run", "--pipeline", file.toString(), "--available-now")).isNotZero();
    assertThat(err())
        .contains("customer_id")
        .contains("the columns of the source table")
        .contains("id, name, at");
  }

  @Test
  void aRowTheSinkCannotHoldGoesToQuarantineWithItsTableProvenance() throws Exception {
    try (AppendTransaction tx = bronze.newAppend(new TransactionId("bronze-writer", 0))) {
      tx.write(new Object[] {0L, "eu", at(0)});
      tx.write(
          new Object[] {1L, "E\u0000U", at(1)}); // a NUL cannot be in a partition directory name
      tx.write(new Object[] {2L, "us", at(2)});
      tx.commit(Map.of());
    }
    Path file =
        write(
            "regions.yaml",
            """
        pipeline: regions
        source:
          delta: { path: %1$s/bronze }
        transform:
          - derive: { region: "name" }
        sink:
          delta: { path: %1$s/regions, partition-by: [region] }
        checkpoint: %1$s/chk/regions
        """
                .formatted(dir));
    assertThat(run("run", "--pipeline", file.toString(), "--available-now")).as(err()).isZero();
    assertThat(rows("regions")).extracting(r -> r[0]).containsExactlyInAnyOrder(0L, 2L);
    List<Object[]> quarantined = rows("regions-quarantine");
    assertThat(quarantined)
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q[0]).isEqualTo(dir + "/bronze"); // source_table
              assertThat(q[2]).isEqualTo(1L); // source_version: the commit that added the file
              assertThat(q[4]).isEqualTo(1L); // source_row
              assertThat((String) q[5]).contains("\"id\":1"); // the row as JSON
              assertThat((String) q[6])
                  .startsWith("partition column 'region': the value contains a NUL");
            });
  }

  @Test
  void aDeltaSourceJoinsWithADimensionTable() throws Exception {
    append(0, 0, 8);
    StructType customers =
        StructType.of(
            StructField.nullable("name", PrimitiveType.STRING),
            StructField.nullable("segment", PrimitiveType.STRING));
    try (ObjectStore dimStore = ObjectStores.open(dir.resolve("dims").toString(), null)) {
      DeltaTable dim = DeltaTable.open(dimStore, TableOptions.defaults());
      dim.create(customers, List.of(), Map.of());
      try (AppendTransaction tx = dim.newAppend(new TransactionId("dim-writer", 0))) {
        for (long id = 0; id < 4; id++) {
          tx.write(new Object[] {"name-" + id, "segment-" + id % 2});
        }
        tx.commit(Map.of());
      }
    }
    Path file =
        write(
            "enriched.yaml",
            """
        pipeline: enriched
        source:
          delta: { path: %1$s/bronze }
        join:
          - delta: { path: %1$s/dims }
            on: [name]
            type: left
        sink:
          delta: { path: %1$s/enriched }
        checkpoint: %1$s/chk/enriched
        """
                .formatted(dir));
    assertThat(run("run", "--pipeline", file.toString(), "--available-now")).as(err()).isZero();
    Map<Long, Object> segments = new TreeMap<>();
    for (Object[] row : rows("enriched")) {
      assertThat(row).hasSize(4); // id, name, at, segment
      segments.put((Long) row[0], row[3] == null ? "none" : row[3]);
    }
    assertThat(segments)
        .containsExactly(
            Map.entry(0L, "segment-0"),
            Map.entry(1L, "segment-1"),
            Map.entry(2L, "segment-0"),
            Map.entry(3L, "segment-1"),
            Map.entry(4L, "none"),
            Map.entry(5L, "none"),
            Map.entry(6L, "none"),
            Map.entry(7L, "none"));
  }
}
