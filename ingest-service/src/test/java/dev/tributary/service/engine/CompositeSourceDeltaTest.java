package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CompositeSource} with a Delta table as either input (issue 25): the table's range facts
 * are namespaced {@code stream.0.} when it is the second input and stay as a single Delta source
 * writes them when it is the main one; each input plans with its own limits and continues from its
 * own part; the read gives the main input, the crash point, then the table's rows; an offsets entry
 * read back replays both inputs exactly even after the table has grown; the history keys of the
 * table are prefixed.
 */
class CompositeSourceDeltaTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("user_id", PrimitiveType.STRING),
          StructField.nullable("event_ts", PrimitiveType.TIMESTAMP));

  private final InMemorySource.Log clicks = new InMemorySource.Log("clicks", 1);
  @TempDir Path dir;
  private ObjectStore store;
  private DeltaTable table;
  private long commits;

  @BeforeEach
  void createTable() throws IOException {
    store = ObjectStores.open(dir.resolve("purchases").toString(), null);
    table = DeltaTable.open(store, TableOptions.defaults());
    table.create(SCHEMA, List.of(), Map.of());
  }

  @AfterEach
  void close() throws IOException {
    store.close();
  }

  /** One commit (one file) of {@code rows} purchases named {@code u<commit>-<i>}. */
  private void commit(int rows) throws IOException {
    long n = ++commits;
    try (AppendTransaction tx = table.newAppend(new TransactionId("writer", n))) {
      for (int i = 0; i < rows; i++) {
        tx.write(new Object[] {"u" + n + "-" + i, Instant.EPOCH.plusSeconds(n * 100 + i)});
      }
      tx.commit(Map.of());
    }
  }

  private DeltaTableSource table(Long maxFiles) throws IOException {
    return new DeltaTableSource(
        "attribution",
        DeltaTable.open(store, TableOptions.defaults()),
        new StartingPoint.Earliest(),
        maxFiles == null ? SourceLimits.unlimited() : SourceLimits.of(maxFiles, null),
        ChangeOptions.strict());
  }

  private CompositeSource kafkaThenTable(long mainMax, Long maxFiles) throws IOException {
    return new CompositeSource(InMemorySource.of(clicks, mainMax), table(maxFiles));
  }

  @Test
  void plansTheTableAsTheSecondInputWithItsOwnLimitAndNamespacedFacts() throws Exception {
    append(clicks, 3);
    commit(2);
    commit(2);
    PlannedBatch first = kafkaThenTable(2, 1L).plan(BatchRange.startingAt(Map.of()), true);

    assertThat(first.hasInput()).isTrue();
    assertThat(first.range().offsets())
        .containsExactlyEntriesOf(Map.of(new SourcePartition("clicks", 0), new OffsetRange(0, 2)));
    assertThat(first.range().facts())
        .containsKeys(
            CompositeSource.FACT_PREFIX + DeltaTableSource.FROM,
            CompositeSource.FACT_PREFIX + DeltaTableSource.TO)
        .doesNotContainKeys(DeltaTableSource.FROM, DeltaTableSource.TO);
    assertThat(first.progress())
        .extracting(BatchProgress.PartitionProgress::topic)
        .containsExactly("clicks", CompositeSource.TOPIC_PREFIX + table.location());
    assertThat(first.sourceLag()).containsKey(CompositeSource.FACT_PREFIX + "versionsBehind");
    assertThat(rowsRead(kafkaThenTable(2, 1L), first.range()))
        .as("one file per batch: the table's own limit")
        .containsExactly("u1-0", "u1-1");

    // each input continues after its own part: the clicks at 2, the table after its first file
    PlannedBatch second = kafkaThenTable(2, 1L).plan(first.range(), false);
    assertThat(second.range().offsets().get(new SourcePartition("clicks", 0)))
        .isEqualTo(new OffsetRange(2, 3));
    assertThat(rowsRead(kafkaThenTable(2, 1L), second.range())).containsExactly("u2-0", "u2-1");

    // nothing left in either: no batch; a new commit of the table alone makes one
    PlannedBatch third = kafkaThenTable(2, 1L).plan(second.range(), false);
    assertThat(third.hasInput()).isFalse();
    commit(1);
    assertThat(kafkaThenTable(2, 1L).plan(second.range(), false).hasInput()).isTrue();
  }

  @Test
  void readsTheRecordsThenTheTableRowsAndReplaysTheEntryExactlyAfterTheTableGrew()
      throws Exception {
    append(clicks, 2);
    commit(2);
    CompositeSource source = kafkaThenTable(10, null);
    BatchRange range = source.plan(BatchRange.startingAt(Map.of()), true).range();

    List<String> first = readRecording(source, range);
    assertThat(first)
        .containsExactly(
            "begin 0",
            "clicks-0@0",
            "clicks-0@1",
            "point after-first-input",
            "begin 1",
            "row u1-0",
            "row u1-1");

    OffsetsEntry entry =
        new OffsetsEntry(
            3,
            range.offsets(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            Instant.EPOCH,
            range.facts());
    commit(3); // arrived since: not part of the batch
    append(clicks, 2);
    CompositeSource restarted = kafkaThenTable(10, null);
    assertThat(readRecording(restarted, BatchRange.of(entry))).isEqualTo(first);
    assertThat(restarted.replayed(BatchRange.of(entry)).range()).isEqualTo(range);
  }

  @Test
  void theTableAsTheMainInputKeepsASingleDeltaSourcesFacts() throws Exception {
    commit(2);
    append(clicks, 1);
    CompositeSource source = new CompositeSource(table(null), InMemorySource.of(clicks, 10));
    BatchRange range = source.plan(BatchRange.startingAt(Map.of()), true).range();

    assertThat(range.facts())
        .containsKeys(DeltaTableSource.FROM, DeltaTableSource.TO)
        .doesNotContainKeys(CompositeSource.FACT_PREFIX + DeltaTableSource.FROM);
    assertThat(range.offsets())
        .containsOnlyKeys(new SourcePartition(CompositeSource.TOPIC_PREFIX + "clicks", 0));
    assertThat(CompositeSource.mainPart(range).facts())
        .containsOnlyKeys(DeltaTableSource.FROM, DeltaTableSource.TO);
    assertThat(readRecording(source, range))
        .containsExactly(
            "begin 0", "row u1-0", "row u1-1", "point after-first-input", "begin 1", "clicks-0@0");

    // the next batch continues both; the table's first batch check does not mistake the second
    // input's offsets for a Kafka checkpoint
    commit(1);
    BatchRange next =
        new CompositeSource(table(null), InMemorySource.of(clicks, 10)).plan(range, false).range();
    assertThat(readRecording(new CompositeSource(table(null), InMemorySource.of(clicks, 10)), next))
        .containsExactly("begin 0", "row u2-0", "point after-first-input", "begin 1");
  }

  @Test
  void historyKeysOfTheTableArePrefixedAndAvailableNowBoundsIt() throws Exception {
    append(clicks, 1);
    commit(1);
    CompositeSource source = kafkaThenTable(10, null);
    source.boundToAvailableNow();
    commit(1); // after the bound: not read by this run
    BatchRange range = source.plan(BatchRange.startingAt(Map.of()), true).range();

    assertThat(source.commitInfo(range))
        .containsKey(CompositeSource.FACT_PREFIX + "deltaSource")
        .containsEntry("offsets", "clicks/0:0-1");
    assertThat(source.describe(range)).contains(" and join[0] input table " + table.location());
    assertThat(rowsRead(source, range)).containsExactly("u1-0");
    assertThat(source.plan(range, false).hasInput()).isFalse();
  }

  private static List<String> rowsRead(Source source, BatchRange range) throws Exception {
    return readRecording(source, range).stream()
        .filter(s -> s.startsWith("row "))
        .map(s -> s.substring(4))
        .toList();
  }

  private static List<String> readRecording(Source source, BatchRange range) throws Exception {
    List<String> seen = new ArrayList<>();
    CrashPoints.onThisThread(
        point -> seen.add("point " + point),
        () ->
            source.read(
                range,
                true /* inFixedOrder */,
                new SourceInput() {
                  @Override
                  public void record(ConsumerRecord<byte[], byte[]> record) {
                    seen.add(record.topic() + "-" + record.partition() + "@" + record.offset());
                  }

                  @Override
                  public void row(SourceRow row) {
                    seen.add("row " + row.values()[0]);
                  }

                  @Override
                  public void beginInput(int input) {
                    seen.add("begin " + input);
                  }
                }));
    return seen;
  }

  private static void append(InMemorySource.Log log, int count) {
    for (int i = 0; i < count; i++) {
      log.append(0, "{\"n\":" + i + "}");
    }
  }
}
