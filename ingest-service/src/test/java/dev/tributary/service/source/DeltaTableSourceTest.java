package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.SourceInput;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.CompactionOptions;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourcePosition;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Delta table source behind the engine's SPI, over a table our writer made on local disk. */
class DeltaTableSourceTest {
  static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("name", PrimitiveType.STRING));

  @TempDir Path dir;
  ObjectStore store;
  DeltaTable table;

  @BeforeEach
  void open() throws IOException {
    store = ObjectStores.open(dir.resolve("bronze").toString(), null);
    table = DeltaTable.open(store, TableOptions.defaults());
    table.create(SCHEMA, List.of(), Map.of());
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  private void append(long batch, long from, long to) throws IOException {
    try (AppendTransaction tx = table.newAppend(new TransactionId("writer", batch))) {
      for (long id = from; id < to; id++) {
        tx.write(new Object[] {id, "name-" + id});
      }
      tx.commit(Map.of());
    }
  }

  private DeltaTableSource source(SourceLimits limits) throws IOException {
    return new DeltaTableSource(
        "silver",
        DeltaTable.open(store, TableOptions.defaults()),
        new StartingPoint.Earliest(),
        limits,
        ChangeOptions.strict());
  }

  /** Collects the ids of the rows a read delivers, and refuses records. */
  private static final class Ids implements SourceInput {
    final List<Long> ids = new ArrayList<>();

    @Override
    public void record(ConsumerRecord<byte[], byte[]> record) {
      throw new AssertionError("a Delta source delivers rows");
    }

    @Override
    public void row(SourceRow row) {
      ids.add((Long) row.values()[0]);
    }
  }

  private static List<Long> read(DeltaTableSource source, BatchRange range) throws Exception {
    Ids ids = new Ids();
    source.read(range, true, ids);
    return ids.ids;
  }

  @Test
  void aRangeIsRecordedAsTwoPositionsWithoutOffsetsAndReplaysTheSameRowsInANewProcess()
      throws Exception {
    append(0, 0, 10);
    append(1, 10, 20);
    append(2, 20, 30);
    List<BatchRange> ranges = new ArrayList<>();
    List<Long> firstRun = new ArrayList<>();
    try (DeltaTableSource source = source(SourceLimits.of(1L, null))) {
      BatchRange previous = BatchRange.startingAt(Map.of());
      for (boolean first = true; ; first = false) {
        PlannedBatch plan = source.plan(previous, first);
        if (!plan.hasInput()) {
          assertThat(plan.progress())
              .singleElement()
              .satisfies(p -> assertThat(p.latestOffset()).isEqualTo(3));
          assertThat(plan.sourceLag())
              .containsEntry("filesBehind", 0L)
              .containsEntry("bytesBehind", 0L);
          break;
        }
        if (first) {
          assertThat(plan.sourceLag())
              .containsEntry("filesBehind", 2L); // one of three files per batch
          assertThat(plan.sourceLag().get("bytesBehind")).isPositive();
        }
        assertThat(plan.range().offsets()).isEmpty();
        assertThat(plan.range().facts())
            .containsOnlyKeys(DeltaTableSource.FROM, DeltaTableSource.TO);
        SourcePosition.fromJson(
            plan.range().facts().get(DeltaTableSource.TO)); // the documented JSON form
        firstRun.addAll(read(source, plan.range()));
        ranges.add(plan.range());
        previous = plan.range();
      }
    }
    assertThat(firstRun).hasSize(30).doesNotHaveDuplicates();
    assertThat(ranges).hasSize(3); // one file per batch

    try (DeltaTableSource restarted = source(SourceLimits.defaults())) {
      List<Long> replayed = new ArrayList<>();
      for (BatchRange r : ranges) {
        replayed.addAll(
            read(restarted, r)); // no plan in this process: the recorded range is replayed
      }
      assertThat(replayed).isEqualTo(firstRun);
    }
  }

  @Test
  void aCompactionOfTheSourceTableAddsNoRowAndAvailableNowStopsAtTheVersionAtStart()
      throws Exception {
    for (int b = 0; b < 4; b++) {
      append(b, b * 5L, b * 5L + 5);
    }
    try (DeltaTableSource source = source(SourceLimits.defaults())) {
      source.boundToAvailableNow();
      PlannedBatch all = source.plan(BatchRange.startingAt(Map.of()), true);
      assertThat(read(source, all.range())).hasSize(20);

      assertThat(table.compact(new CompactionOptions(2, 128L * 1024 * 1024)).compacted()).isTrue();
      append(9, 100, 105); // after the run started: not in this available-now run
      PlannedBatch next = source.plan(all.range(), false);
      assertThat(read(source, next.range())).isEmpty();
      assertThat(source.lag(next.range()).bytesBehind()).isPositive();
    }
    try (DeltaTableSource nextRun = source(SourceLimits.defaults())) {
      // A new run sees the append, and only its rows: the compaction's files are passed over.
      PlannedBatch planned =
          nextRun.plan(
              new BatchRange(
                  Map.of(),
                  Map.of(
                      DeltaTableSource.TO,
                      SourcePosition.commitStart(table.snapshot().tableId(), 5).toJson())),
              false);
      assertThat(read(nextRun, planned.range())).containsExactly(100L, 101L, 102L, 103L, 104L);
    }
  }

  @Test
  void aCheckpointThatAKafkaSourceWroteIsRefused() throws Exception {
    append(0, 0, 1);
    try (DeltaTableSource source = source(SourceLimits.defaults())) {
      BatchRange kafka = BatchRange.startingAt(Map.of(new SourcePartition("orders", 0), 7L));
      assertThatThrownBy(() -> source.plan(kafka, false))
          .hasMessageContaining("Pipeline silver")
          .hasMessageContaining("holds Kafka offsets")
          .hasMessageContaining("Use a new checkpoint location");
    }
  }
}
