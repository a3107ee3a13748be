package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableException;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.DeltaSourcePlanner;
import dev.tributary.table.stream.SourceFile;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourcePosition;
import dev.tributary.table.stream.SourceRange;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Delta streaming source's planner ({@code dev.tributary.table.stream}) over tables Spark 4 +
 * Delta 4 wrote (issue 12): appends in two files per partition, an OPTIMIZE, two more appends (a
 * log checkpoint at version 10), a DELETE, one more append; partitioned by region (the DELETE of a
 * whole partition only removes files) and not (the DELETE rewrites files). Spark writes both in one
 * child JVM ({@link SparkReference}, the {@code tables} job of SparkJudge.java) and reports the ids
 * of the final tables. The same Spark run reads the tables of {@link EvolvedTablesForSpark} and
 * {@link AvroEvolvedTableForSpark}, and makes the tables of {@link SparkFeatureTables} (deletion
 * vectors, column mapping) and the typed tables of {@link SparkTypedTables} (every column type,
 * INT96 and millisecond timestamps, the legacy Parquet layout) for the Delta source to read,
 * applies the change stream of {@link SparkMergeTables} with {@code MERGE INTO}, and reads the
 * table {@link UpsertedTableForSpark} upserted with deletion vectors; it also makes the tables of
 * {@link SparkCompareTables} and counts their EXCEPT ALL, the judge of {@code tributary compare},
 * and reads the table of {@link ReplacedTableForSpark}, a day swapped in by {@code backfill
 * --replace}, and makes the variant and widened tables of {@link SparkVariantTables} and the tables
 * of {@link SparkWidenedTables}, where every type change Delta 4.0 makes was applied (a Spark start
 * costs ~30-40 s, so one start serves all).
 */
class SparkInteropIT {
  /** Version 12 of both tables: the DELETE. */
  static final long DELETE = 12;

  static final long OPTIMIZE = 9;
  @TempDir static Path dir;
  static Path partitioned;
  static Path flat;
  static final List<ObjectStore> stores = new ArrayList<>();

  static EvolvedTablesForSpark evolved;
  static AvroEvolvedTableForSpark avroEvolved;
  static ColumnsAllTableForSpark columnsAll;
  static SparkFeatureTables features;
  static SparkAppendTables appends;
  static SparkTypedTables typed;
  static SparkMergeTables merges;
  static UpsertedTableForSpark upserted;
  static SparkCompareTables compares;
  static ReplacedTableForSpark replaced;
  static SparkVariantTables variants;
  static SparkWidenedTables widened;

  @BeforeAll
  static void sparkWritesTheTablesAndReadsOurs() throws Exception {
    Path work = Files.createDirectories(dir.resolve("spark/work"));
    partitioned = dir.resolve("partitioned");
    flat = dir.resolve("flat");
    evolved = new EvolvedTablesForSpark(Files.createDirectories(dir.resolve("evolved")));
    avroEvolved =
        new AvroEvolvedTableForSpark(Files.createDirectories(dir.resolve("avro-evolved")));
    columnsAll = new ColumnsAllTableForSpark(Files.createDirectories(dir.resolve("columns-all")));
    features = new SparkFeatureTables(Files.createDirectories(dir.resolve("features")));
    appends = new SparkAppendTables(Files.createDirectories(dir.resolve("appends")));
    typed = new SparkTypedTables(Files.createDirectories(dir.resolve("typed")));
    merges = new SparkMergeTables(Files.createDirectories(dir.resolve("merge")));
    upserted = new UpsertedTableForSpark(Files.createDirectories(dir.resolve("upserted")));
    compares = new SparkCompareTables(Files.createDirectories(dir.resolve("compare")));
    replaced = new ReplacedTableForSpark(Files.createDirectories(dir.resolve("replaced")));
    variants = new SparkVariantTables(Files.createDirectories(dir.resolve("variants")));
    widened = new SparkWidenedTables(Files.createDirectories(dir.resolve("widened")));
    List<Map<String, String>> reads = new ArrayList<>(evolved.prepare());
    reads.add(avroEvolved.prepare());
    reads.add(columnsAll.prepare());
    reads.add(upserted.prepare());
    reads.add(replaced.prepare());
    List<Map<String, Object>> sqlTables = new ArrayList<>(features.jobTables());
    sqlTables.addAll(appends.jobTables());
    sqlTables.addAll(typed.jobTables());
    sqlTables.addAll(merges.jobTables());
    sqlTables.addAll(compares.jobTables());
    sqlTables.addAll(variants.jobTables());
    sqlTables.addAll(widened.jobTables());
    Path ready = work.resolve("ready");
    Path resume = work.resolve("resume.json");
    SparkReference.Running spark =
        SparkReference.start(
            Map.of(
                "warehouse",
                work.resolve("warehouse").toString(),
                "tables",
                List.of(
                    table(partitioned, "region", "region = 'EU'"), table(flat, "", "id % 10 = 0")),
                "sqlTables",
                sqlTables,
                "reads",
                reads,
                "pause",
                Map.of("ready", ready.toString(), "resume", resume.toString())),
            work);
    try {
      spark.awaitReady(ready);
      // the same Spark reads back what our pipelines appended to the tables it made
      Map<String, Object> readBack = new LinkedHashMap<>(appends.appendAndListReads());
      List<Object> readsBack = new ArrayList<>((List<?>) readBack.get("reads"));
      readsBack.addAll(typed.appendAndListReads());
      readsBack.addAll(merges.upsertAndListReads());
      readsBack.addAll(variants.appendAndListReads());
      readsBack.addAll(widened.appendAndListReads());
      readBack.put("reads", readsBack);
      spark.resume(resume, readBack);
    } catch (Exception | AssertionError e) {
      spark.kill();
      throw e;
    }
    spark.await();
  }

  @Test
  void aKafkaPipelineAppendsToASparkTableWithColumnMappingVectorsRowTrackingAndClustering()
      throws Exception {
    appends.check();
  }

  @Test
  void aKafkaPipelineAppendsToASparkTableWithACheckConstraintAGeneratedAndAnIdentityColumn()
      throws Exception {
    appends.checkRuled();
  }

  @Test
  void everyColumnTypeSparkWritesIsReadAsKernelReadsItInEachParquetShape() throws Exception {
    for (String name : List.of("types-default", "types-int96", "types-millis", "types-legacy")) {
      assertThat(typed.check(name)).as(name).isEqualTo(41);
    }
    assertThat(typed.check("types-partitioned")).isEqualTo(12);
    // the settings took: each table holds the physical shape its case is about
    MessageType int96 = typed.fileSchema("types-int96");
    SparkTypedTables.assertPhysical(int96, "ts", PrimitiveTypeName.INT96);
    MessageType millis = typed.fileSchema("types-millis");
    assertThat(millis.getType("ts").getLogicalTypeAnnotation())
        .isEqualTo(
            LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS));
    MessageType plain = typed.fileSchema("types-default");
    SparkTypedTables.assertPhysical(plain, "d5", PrimitiveTypeName.INT32);
    SparkTypedTables.assertPhysical(plain, "d18", PrimitiveTypeName.INT64);
    SparkTypedTables.assertPhysical(plain, "d38", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY);
    MessageType legacy = typed.fileSchema("types-legacy");
    SparkTypedTables.assertPhysical(legacy, "d5", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY);
    assertThat(legacy.getType("arr").asGroupType().getType(0).getName())
        .as("a two-level list")
        .isNotEqualTo("list");
  }

  @Test
  void aKafkaPipelineAppendsTimestampNtzByteShortAndFloatToASparkTableAndSparkReadsThem()
      throws Exception {
    typed.checkAppend();
  }

  @Test
  void variantColumnsAreReadAsTheTextSparksToJsonGivesAndRefusedToWriters() throws Exception {
    assertThat(variants.checkVariants()).isEqualTo(16);
  }

  @Test
  void aKafkaPipelineAppendsToASparkTableWhoseColumnsWereWidenedAndTheTypeChangesStay()
      throws Exception {
    variants.checkWidenedAppend();
  }

  @Test
  void everyWideningDelta40MakesIsReadAsSparkReadsItAndAKafkaPipelineAppendsTheWideValues()
      throws Exception {
    assertThat(widened.checkNested()).isEqualTo(3);
    assertThat(widened.checkAll()).isEqualTo(5);
  }

  @Test
  void compareCountsTheRowsSparksExceptAllCountsBothWaysAcrossVersionsAndUnderAWhere()
      throws Exception {
    compares.check();
  }

  /** Issue 28: one day of a month recomputed and swapped in while the live run appends. */
  @Test
  void aDayReplacedInAMonthLongTableWhileTheLiveRunAppendsIsReadAsSparkAndKernelReadIt()
      throws Exception {
    replaced.check();
  }

  @Test
  void anUpsertPipelineGivesTheTableSparksMergeIntoGivesBatchByBatch() throws Exception {
    merges.check();
  }

  @Test
  void sparkReadsOurHistoryTableAsKernelReadsIt() throws Exception {
    merges.checkHistory();
  }

  @Test
  void deletionVectorsAfterDeleteUpdateAndMergeAreReadAsSparkAndKernelReadThem() throws Exception {
    assertThat(features.check("dv")).isGreaterThan(100);
    assertThat(features.check("dv-partitioned")).isGreaterThan(100);
  }

  @Test
  void columnMappingByNameAndByIdWithARenameAndADropIsReadAsKernelReadsIt() throws Exception {
    assertThat(features.check("columnmapping-name")).isEqualTo(40);
    assertThat(features.check("columnmapping-id")).isEqualTo(40);
  }

  @Test
  void v2CheckpointsInParquetAndJsonWithSidecarsAreRead() throws Exception {
    for (String format : List.of("parquet", "json")) {
      Path log = dir.resolve("features/v2checkpoint-" + format + "/_delta_log");
      try (var files = Files.list(log)) {
        assertThat(files.map(f -> f.getFileName().toString()))
            .as("Spark wrote a UUID-named V2 checkpoint in %s", format)
            .anyMatch(n -> n.matches("\\d{20}\\.checkpoint\\.[0-9a-f-]{36}\\." + format));
      }
      assertThat(features.check("v2checkpoint-" + format)).isGreaterThan(100);
    }
  }

  @Test
  void deletionVectorsWithColumnMappingAreReadAsKernelReadsThem() throws Exception {
    assertThat(features.check("dv-columnmapping")).isEqualTo(150);
  }

  @Test
  void sparkReadsTheAddedColumnTheRescuedDataAndTheWidenedColumn() throws Exception {
    evolved.check();
  }

  @Test
  void sparkReadsTheColumnsAddedFromAvroAndTheRescuedData() throws Exception {
    avroEvolved.check();
  }

  @Test
  void sparkReadsAColumnsAllTableWithItsWriterColumnsAndTheColumnAV2SchemaAdded() throws Exception {
    columnsAll.check();
  }

  @Test
  void sparkReadsATableUpsertedWithDeletionVectorsAsTheLastValueOfEveryKey() throws Exception {
    upserted.check();
  }

  @AfterAll
  static void closeStores() throws IOException {
    for (ObjectStore s : stores) {
      s.close();
    }
    if (features != null) {
      features.close();
    }
  }

  /** Versions: 0 create, 1..8 appends, 9 OPTIMIZE, 10..11 appends, 12 DELETE, 13 append. */
  private static Map<String, Object> table(Path path, String partitionBy, String deleteWhere) {
    List<Map<String, Object>> steps = new ArrayList<>();
    for (int b = 0; b < 8; b++) {
      steps.add(Map.of("op", "append", "from", b * 10, "to", b * 10 + 10));
    }
    steps.add(Map.of("op", "optimize"));
    steps.add(Map.of("op", "append", "from", 80, "to", 90));
    steps.add(Map.of("op", "append", "from", 90, "to", 100));
    steps.add(Map.of("op", "delete", "where", deleteWhere));
    steps.add(Map.of("op", "append", "from", 100, "to", 110));
    return Map.of(
        "path",
        path.toString(),
        "partitionBy",
        partitionBy,
        "checkpointInterval",
        10,
        "steps",
        steps);
  }

  private static DeltaSourcePlanner planner(Path table, ChangeOptions options) throws IOException {
    ObjectStore store = ObjectStores.open(table.toString(), null);
    stores.add(store);
    return DeltaSourcePlanner.open(DeltaTable.open(store, TableOptions.defaults()), options);
  }

  private static List<Long> sparkIds(Path table) throws IOException {
    return new ObjectMapper()
        .readValue(
            Files.readString(Path.of(table + ".ids.json")), new TypeReference<List<Long>>() {});
  }

  /** Plans 3-file ranges from {@code start} until caught up, or until a commit stops the stream. */
  private static List<SourceRange> drain(
      DeltaSourcePlanner planner, SourcePosition start, List<TableException> stopped)
      throws IOException {
    List<SourceRange> ranges = new ArrayList<>();
    SourcePosition at = start;
    for (int guard = 0; guard < 1000; guard++) {
      SourceRange range;
      try {
        range = planner.plan(at, SourceLimits.of(3L, null));
      } catch (TableException e) {
        stopped.add(e);
        return ranges;
      }
      if (range.isEmpty()) {
        return ranges;
      }
      ranges.add(range);
      at = range.to();
    }
    throw new AssertionError("never caught up");
  }

  private static List<Long> ids(DeltaSourcePlanner planner, List<SourceRange> ranges)
      throws IOException {
    List<Long> ids = new ArrayList<>();
    for (SourceRange r : ranges) {
      for (SourceFile f : r.files()) {
        try (CloseableIterator<SourceRow> it = planner.read(f)) {
          while (it.hasNext()) {
            SourceRow row = it.next();
            long id = (Long) row.values()[0];
            assertThat(row.values())
                .as(row.provenance())
                .containsExactly(id, "name-" + id, id % 3 == 0 ? "EU" : id % 3 == 1 ? "US" : null);
            ids.add(id);
          }
        }
      }
    }
    return ids;
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  private static List<Long> sorted(List<Long> ids) {
    List<Long> copy = new ArrayList<>(ids);
    copy.sort(null);
    return copy;
  }

  @Test
  void sparkWroteWhatTheCasesNeed() throws IOException {
    for (Path t : List.of(partitioned, flat)) {
      assertThat(t.resolve(LogFiles.checkpoint(10))).as("Spark's log checkpoint").exists();
      assertThat(planner(t, ChangeOptions.strict()).openedVersion()).isEqualTo(13);
    }
    // the DELETE (version 12) comes before the last append (ids 100..109)
    assertThat(sparkIds(partitioned))
        .isEqualTo(range(0, 110).stream().filter(i -> i >= 100 || i % 3 != 0).toList());
    assertThat(sparkIds(flat))
        .isEqualTo(range(0, 110).stream().filter(i -> i >= 100 || i % 10 != 0).toList());
  }

  @Test
  void earliestReadsTheCurrentSnapshotOnceAsSparkReadsTheTable() throws IOException {
    for (Path t : List.of(partitioned, flat)) {
      DeltaSourcePlanner planner = planner(t, ChangeOptions.strict());
      List<TableException> stopped = new ArrayList<>();
      List<SourceRange> ranges =
          drain(planner, planner.start(new StartingPoint.Earliest()), stopped);

      assertThat(stopped).isEmpty();
      List<Long> ids = ids(planner, ranges);
      assertThat(ids).as(t.toString()).doesNotHaveDuplicates();
      assertThat(sorted(ids)).isEqualTo(sparkIds(t));
    }
  }

  @Test
  void fromVersionOneTheOptimizeIsSkippedAndTheDeleteStopsTheStream() throws IOException {
    for (Path t : List.of(partitioned, flat)) {
      DeltaSourcePlanner planner = planner(t, ChangeOptions.strict());
      List<TableException> stopped = new ArrayList<>();
      List<SourceRange> ranges =
          drain(planner, planner.start(new StartingPoint.AtVersion(1)), stopped);

      assertThat(stopped)
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .contains("Commit " + DELETE + " (DELETE)")
                      .contains(t.toString()));
      List<Long> ids = ids(planner, ranges);
      assertThat(ids).doesNotHaveDuplicates();
      assertThat(sorted(ids)).isEqualTo(range(0, 100));
      assertThat(ranges).flatMap(SourceRange::files).noneMatch(f -> f.version() == OPTIMIZE);
    }
  }

  @Test
  void skipChangeCommitsReadsEveryAppendOnceAndIgnoreDeletesOnlyPassesTheDeleteThatOnlyRemoves()
      throws IOException {
    for (Path t : List.of(partitioned, flat)) {
      DeltaSourcePlanner planner = planner(t, new ChangeOptions(false, true));
      List<TableException> stopped = new ArrayList<>();
      List<Long> ids =
          ids(planner, drain(planner, planner.start(new StartingPoint.AtVersion(1)), stopped));
      assertThat(stopped).isEmpty();
      assertThat(ids).doesNotHaveDuplicates();
      assertThat(sorted(ids)).isEqualTo(range(0, 110));
    }
    DeltaSourcePlanner deletesOnly = planner(partitioned, new ChangeOptions(true, false));
    List<TableException> stopped = new ArrayList<>();
    List<Long> ids =
        ids(
            deletesOnly,
            drain(deletesOnly, deletesOnly.start(new StartingPoint.AtVersion(1)), stopped));
    assertThat(stopped).isEmpty();
    assertThat(sorted(ids)).isEqualTo(range(0, 110));
    DeltaSourcePlanner rewrite = planner(flat, new ChangeOptions(true, false));
    List<TableException> rewriteStopped = new ArrayList<>();
    drain(rewrite, rewrite.start(new StartingPoint.AtVersion(1)), rewriteStopped);
    assertThat(rewriteStopped)
        .as("a DELETE that rewrites files also adds: ignore-deletes does not cover it")
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .contains("Commit " + DELETE + " (DELETE)")
                    .contains("rewrote data"));
  }

  @Test
  void aNewPlannerReplaysEveryRangeWithTheSameFiles() throws IOException {
    for (Path t : List.of(partitioned, flat)) {
      DeltaSourcePlanner planner = planner(t, new ChangeOptions(false, true));
      List<SourceRange> ranges =
          new ArrayList<>(
              drain(planner, planner.start(new StartingPoint.Earliest()), new ArrayList<>()));
      ranges.addAll(
          drain(planner, planner.start(new StartingPoint.AtVersion(1)), new ArrayList<>()));
      DeltaSourcePlanner restarted = planner(t, new ChangeOptions(false, true));
      for (SourceRange r : ranges) {
        assertThat(
                restarted.replay(
                    SourcePosition.fromJson(r.from().toJson()),
                    SourcePosition.fromJson(r.to().toJson())))
            .isEqualTo(r);
      }
    }
  }
}
