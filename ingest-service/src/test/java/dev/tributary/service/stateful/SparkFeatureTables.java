package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tables Spark 4 + Delta 4 makes with the table features Databricks turns on (issue 23): deletion
 * vectors after DELETE, UPDATE and MERGE (with a log checkpoint holding vectors), column mapping by
 * name and by id with a rename and a drop, both together, and V2 checkpoints (Parquet and JSON,
 * with sidecars). {@link SparkInteropIT} has Spark make them in its one Spark run (the {@code
 * sqlTables} job of SparkJudge.java); then each is read by the Delta source's planner (what {@code
 * source.delta} reads with) from {@code earliest} and compared with Delta Kernel's read, row for
 * row, and with the ids Spark reads.
 */
final class SparkFeatureTables {
  private static final String INSERT_IDS =
      "INSERT INTO delta.`{path}` SELECT /*+ REPARTITION(2) */ id, concat('n', id),"
          + " CASE id % 3 WHEN 0 THEN 'EU' WHEN 1 THEN 'US' END FROM range(0, 200)";
  private static final List<String> DML =
      List.of(
          INSERT_IDS,
          "DELETE FROM delta.`{path}` WHERE id % 7 = 0",
          "UPDATE delta.`{path}` SET name = concat('u', id) WHERE id % 5 = 0",
          "MERGE INTO delta.`{path}` t USING (SELECT id, concat('m', id) AS name, 'US' AS region"
              + " FROM range(190, 210)) s ON t.id = s.id WHEN MATCHED AND s.id % 2 = 0 THEN DELETE"
              + " WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT *",
          "DELETE FROM delta.`{path}` WHERE id BETWEEN 50 AND 52");

  /** Table name to its SQL. */
  static final Map<String, List<String>> TABLES = new LinkedHashMap<>();

  static {
    TABLES.put(
        "dv",
        concat(
            "CREATE TABLE delta.`{path}` (id BIGINT, name STRING, region STRING) USING delta"
                + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true',"
                + " 'delta.checkpointInterval' = '3')",
            DML));
    TABLES.put(
        "dv-partitioned",
        concat(
            "CREATE TABLE delta.`{path}` (id BIGINT, name STRING, region STRING) USING delta"
                + " PARTITIONED BY (region) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true',"
                + " 'delta.checkpointInterval' = '2')",
            DML));
    for (String mode : List.of("name", "id")) {
      TABLES.put(
          "columnmapping-" + mode,
          List.of(
              "CREATE TABLE delta.`{path}` (id BIGINT, `first name` STRING, region STRING,"
                  + " extra INT) USING delta PARTITIONED BY (region)"
                  + " TBLPROPERTIES ('delta.columnMapping.mode' = '"
                  + mode
                  + "')",
              "INSERT INTO delta.`{path}` SELECT id, concat('f', id),"
                  + " CASE id % 3 WHEN 0 THEN 'EU' WHEN 1 THEN 'US' END, CAST(id AS INT)"
                  + " FROM range(0, 30)",
              "ALTER TABLE delta.`{path}` RENAME COLUMN `first name` TO label",
              "ALTER TABLE delta.`{path}` DROP COLUMN extra",
              "INSERT INTO delta.`{path}` SELECT id, concat('g', id), 'EU' FROM range(30, 40)"));
    }
    for (String format : List.of("parquet", "json")) {
      List<String> sql = new ArrayList<>();
      sql.add("SET spark.databricks.delta.checkpointV2.topLevelFileFormat = " + format);
      sql.add(
          "CREATE TABLE delta.`{path}` (id BIGINT, name STRING, region STRING) USING delta"
              + " TBLPROPERTIES ('delta.checkpointPolicy' = 'v2',"
              + " 'delta.checkpointInterval' = '2', 'delta.enableDeletionVectors' = 'true')");
      sql.addAll(DML);
      sql.add("RESET spark.databricks.delta.checkpointV2.topLevelFileFormat");
      TABLES.put("v2checkpoint-" + format, sql);
    }
    TABLES.put(
        "dv-columnmapping",
        concat(
            "CREATE TABLE delta.`{path}` (id BIGINT, name STRING, region STRING) USING delta"
                + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true',"
                + " 'delta.columnMapping.mode' = 'name')",
            List.of(
                INSERT_IDS,
                "DELETE FROM delta.`{path}` WHERE id % 4 = 0",
                "ALTER TABLE delta.`{path}` RENAME COLUMN name TO label",
                "UPDATE delta.`{path}` SET label = 'x' WHERE id % 3 = 1")));
  }

  private final Path dir;
  private final List<ObjectStore> stores = new ArrayList<>();

  SparkFeatureTables(Path dir) {
    this.dir = dir;
  }

  /** The {@code sqlTables} entries of the Spark job. */
  List<Map<String, Object>> jobTables() {
    List<Map<String, Object>> out = new ArrayList<>();
    TABLES.forEach(
        (name, sql) -> out.add(Map.of("path", dir.resolve(name).toString(), "statements", sql)));
    return out;
  }

  /** Reads a table as the Delta source does and as Kernel does; returns the rows checked. */
  int check(String name) throws IOException {
    Path path = dir.resolve(name);
    ObjectStore store = ObjectStores.open(path.toString(), null);
    stores.add(store);
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    Snapshot snapshot = table.snapshot();
    assertThat(snapshot.version())
        .as("%s: the version Spark ended at", name)
        .isEqualTo(Long.parseLong(Files.readString(Path.of(path + ".version")).strip()));

    DeltaSourcePlanner planner = DeltaSourcePlanner.open(table, ChangeOptions.strict());
    SourceRange range =
        planner.plan(planner.start(new StartingPoint.Earliest()), SourceLimits.unlimited());
    List<List<Object>> ours = new ArrayList<>();
    for (SourceFile f : range.files()) {
      try (CloseableIterator<SourceRow> rows = planner.read(f)) {
        while (rows.hasNext()) {
          ours.add(Arrays.asList(rows.next().values()));
        }
      }
    }
    KernelReader kernel = new KernelReader(store);
    assertThat(planner.readSchema().fieldNames())
        .as("%s: logical column names", name)
        .isEqualTo(kernel.columnNames());
    List<List<Object>> theirs = new ArrayList<>();
    kernel.rows().forEach(r -> theirs.add(Arrays.asList(r)));
    Comparator<List<Object>> byId = Comparator.comparingLong(r -> (Long) r.get(0));
    ours.sort(byId);
    theirs.sort(byId);
    assertThat(ours)
        .as("%s: read by source.delta's planner vs Delta Kernel", name)
        .isEqualTo(theirs);

    List<Long> sparkIds = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String line : Files.readAllLines(Path.of(path + ".spark.json"))) {
      JsonNode row = json.readTree(line);
      sparkIds.add(row.get(planner.readSchema().fieldNames().get(0)).asLong());
    }
    assertThat(ours.stream().map(r -> (Long) r.get(0)).toList())
        .as("%s: the ids Spark reads", name)
        .isEqualTo(sparkIds);
    return ours.size();
  }

  void close() throws IOException {
    for (ObjectStore s : stores) {
      s.close();
    }
  }

  private static List<String> concat(String first, List<String> rest) {
    List<String> all = new ArrayList<>();
    all.add(first);
    all.addAll(rest);
    return all;
  }
}
