package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TableTransaction;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page's views of a pipeline's tables, on real Delta tables on local disk: the sink
 * table's commits (newest first, with operation, batch, files and rows; found whether or not the
 * last batch's version is known, also after the table was re-created below it) and the newest
 * quarantined records with their errors.
 */
class TableViewsTest {
  private static final StructType EVENTS =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("page", PrimitiveType.STRING));

  @TempDir Path dir;
  private ManagedPipeline pipeline;
  private final TableViews views = new TableViews();

  @BeforeEach
  void declare() {
    PipelineSpec spec =
        PipelineParser.parse(
            """
            pipeline: clicks
            source: { kafka: { bootstrap-servers: localhost:9092, topics: [clicks] } }
            format: { json: { schema: { id: long, page: string } } }
            sink: { delta: { path: %s/tables/clicks } }
            checkpoint: %s/checkpoints/clicks
            """
                .formatted(dir, dir),
            "clicks.yaml",
            Map.of());
    pipeline =
        ManagedPipeline.invalid(
            "clicks", dir.resolve("clicks.yaml"), Optional.of(spec), "test", Clock.systemUTC());
  }

  @Test
  void beforeTheFirstBatchThereIsNothingToShow() throws Exception {
    assertThat(views.recentCommits(viewed(), 10)).isEmpty();
    assertThat(views.quarantineSamples(viewed(), 10)).isEmpty();
  }

  @Test
  void listsTheSinkTablesNewestCommitsWithTheirBatchAndFiles() throws Exception {
    Path table = dir.resolve("tables/clicks");
    create(table, EVENTS);
    for (long batch = 0; batch < 4; batch++) {
      append(table, "clicks@ckpt-1", batch, rows(batch * 10, 3));
    }
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      DeltaTable.open(store, TableOptions.defaults())
          .compact(new CompactionOptions(2, 128L * 1024 * 1024));
    }

    List<SinkCommit> commits = views.recentCommits(viewed(), 3);
    assertThat(commits).extracting(SinkCommit::version).containsExactly(5L, 4L, 3L);
    SinkCommit compaction = commits.get(0);
    assertThat(compaction.operation()).isEqualTo("OPTIMIZE");
    assertThat(compaction.batchId()).as("no batch of the pipeline").isNull();
    assertThat(compaction.filesRemoved()).isEqualTo(4);
    assertThat(compaction.filesAdded()).isEqualTo(1);
    assertThat(compaction.rowsAdded()).isEqualTo(12);
    SinkCommit batch3 = commits.get(1);
    assertThat(batch3.batchId()).isEqualTo(3L);
    assertThat(batch3.operation()).isEqualTo("WRITE");
    assertThat(batch3.filesAdded()).isEqualTo(1);
    assertThat(batch3.filesRemoved()).isZero();
    assertThat(batch3.rowsAdded()).isEqualTo(3);
    assertThat(batch3.bytesAdded()).isPositive();
    assertThat(batch3.timestamp()).isNotNull();
    assertThat(batch3.table()).isEqualTo(dir + "/tables/clicks");

    // With the last batch's version known, the listing starts just below it: the same answer.
    pipeline.progress().add(progress(3, 4));
    assertThat(new TableViews().recentCommits(viewed(), 3)).isEqualTo(commits);
    assertThat(views.recentCommits(viewed(), 50))
        .extracting(SinkCommit::version)
        .containsExactly(5L, 4L, 3L, 2L, 1L, 0L);
  }

  @Test
  void aTableReCreatedBelowTheKnownVersionIsListedFromItsStart() throws Exception {
    Path table = dir.resolve("tables/clicks");
    create(table, EVENTS);
    append(table, "clicks@ckpt-2", 0, rows(0, 2));
    pipeline.progress().add(progress(40, 41)); // a version the table no longer reaches

    assertThat(views.recentCommits(viewed(), 10))
        .extracting(SinkCommit::version, SinkCommit::batchId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, 0L),
            org.assertj.core.groups.Tuple.tuple(0L, null));
  }

  @Test
  void samplesTheNewestQuarantinedRecordsWithTheirErrors() throws Exception {
    Path quarantine = dir.resolve("tables/clicks-quarantine");
    create(quarantine, QuarantineRows.SCHEMA);
    Instant at = Instant.parse("2026-12-01T10:00:00Z");
    List<Object[]> first = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      first.add(quarantined(i, "{\"id\": oops" + i, "Unexpected character at offset " + i, 0, at));
    }
    append(quarantine, "clicks@ckpt-1", 0, first);
    String huge = "x".repeat(2000);
    append(
        quarantine,
        "clicks@ckpt-1",
        1,
        List.<Object[]>of(quarantined(7, huge, "record too large", 1, at.plusSeconds(5))));

    List<QuarantineSample> samples = views.quarantineSamples(viewed(), 3);
    assertThat(samples)
        .extracting(QuarantineSample::source)
        .containsExactly("clicks/0@7", "clicks/0@2", "clicks/0@1");
    QuarantineSample newest = samples.get(0);
    assertThat(newest.error()).isEqualTo("record too large");
    assertThat(newest.value()).hasSize(TableViews.MAX_VALUE_CHARS + 1).endsWith("…");
    assertThat(newest.batchId()).isEqualTo(1L);
    assertThat(newest.quarantinedAt()).isEqualTo(at.plusSeconds(5));
    assertThat(samples.get(1).value()).isEqualTo("{\"id\": oops2");
    assertThat(samples.get(1).error()).isEqualTo("Unexpected character at offset 2");
    assertThat(views.quarantineSamples(viewed(), 50)).hasSize(4);
  }

  private TableViews.Viewed viewed() {
    return TableViews.Viewed.of(pipeline);
  }

  private static Object[] quarantined(
      long offset, String value, String error, long batch, Instant at) {
    return new Object[] {
      "clicks",
      0,
      offset,
      at,
      null,
      value.getBytes(StandardCharsets.UTF_8),
      error,
      "clicks",
      batch,
      at
    };
  }

  private static List<Object[]> rows(long from, int n) {
    List<Object[]> rows = new ArrayList<>();
    for (long i = from; i < from + n; i++) {
      rows.add(new Object[] {i, "/p" + i});
    }
    return rows;
  }

  private static BatchProgress progress(long batchId, long sinkVersion) {
    return new BatchProgress(
        "clicks",
        batchId,
        false,
        Instant.now(),
        3,
        3,
        0,
        0,
        0,
        1,
        1,
        10,
        Map.of(),
        List.of(),
        sinkVersion,
        null,
        List.of(),
        Map.of(),
        0,
        0);
  }

  private static void create(Path table, StructType schema) throws IOException {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      DeltaTable.open(store, TableOptions.defaults()).create(schema, List.of(), Map.of());
    }
  }

  private static void append(Path table, String appId, long batch, List<Object[]> rows)
      throws IOException {
    try (ObjectStore store = ObjectStores.open(table.toString(), null);
        TableTransaction tx =
            DeltaTable.open(store, TableOptions.defaults())
                .newAppend(new TransactionId(appId, batch))) {
      for (Object[] row : rows) {
        tx.write(row);
      }
      tx.commit(Map.of());
    }
  }
}
