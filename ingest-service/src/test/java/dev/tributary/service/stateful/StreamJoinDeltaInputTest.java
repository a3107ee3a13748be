package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.JoinOracle.seedState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchBody;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.engine.TriggerLoop;
import dev.tributary.service.engine.WatermarkPolicy;
import dev.tributary.service.engine.WriteAheadLog;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.StreamJoinInputs;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Delta table as either input of the seed stream-stream join (issue 25), in process: a YAML
 * pipeline reads a local Delta table (one commit per batch, {@code max-files-per-trigger: 1}) and
 * an in-memory topic through {@link CompositeSource}, bound at start by {@link StreamJoinInputs};
 * the sink equals {@link JoinOracle}'s output on the batch cut the checkpoint recorded (the table's
 * part of each entry replayed by a fresh source, the topic's by its offsets), across a restart. Bad
 * records of the topic and table rows an expectation quarantines are in one quarantine table, each
 * with its own provenance (the mixed layout). A window count after the inner join, with the table
 * as either input, equals {@link JoinWindowOracle} over the oracle's pairs. A key missing from the
 * table, or a time column of the wrong type, is refused at start naming the pipeline, the field and
 * the table.
 */
class StreamJoinDeltaInputTest {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z
  private static final StructType EVENTS =
      StructType.of(
          StructField.nullable("user_id", PrimitiveType.STRING),
          StructField.nullable("event_ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("id", PrimitiveType.STRING));

  @TempDir Path dir;
  private final ObjectStore checkpointStore = new InMemoryObjectStore();
  private final ObjectStore sinkStore = new InMemoryObjectStore();
  private final ObjectStore quarantineStore = new InMemoryObjectStore();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private int processes;

  /** The topic's events by offset (partition 0; null: a bad record). */
  private final InMemorySource.Log topic = new InMemorySource.Log("events", 1);

  private final List<JoinOracle.Event> topicEvents = new ArrayList<>();
  private ObjectStore tableStore;
  private DeltaTable table;
  private long commits;

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private String yaml(String tableSide, String time) {
    return yaml(tableSide, time, "left", "");
  }

  /**
   * The seed pipeline with a table on {@code tableSide} ("main" or "second"), the join of {@code
   * type}, and {@code after} (YAML of the operators after the join, or empty).
   */
  private String yaml(String tableSide, String time, String type, String after) {
    String tableSource =
        "{ delta: { path: \"" + dir.resolve("table") + "\", max-files-per-trigger: 1 } }";
    String topicSource =
        "{ kafka: { bootstrap-servers: \"localhost:1\", topics: [events], max-offsets-per-trigger: 7 } }";
    String json = "{ json: { schema: { user_id: string, event_ts: timestamp, id: string } } }";
    boolean mainIsTable = tableSide.equals("main");
    return """
        pipeline: attribution
        source: %s
        %s
        expectations:
          - { name: not_bad, check: "id <> 'bad'", on-violation: quarantine }
        join:
          - stream:
              source: %s
              %s
              watermark: { column: event_ts, delay: 10 minutes }
              prefix: p_
            on: [user_id]
            time: "%s"
            type: %s
        watermark: { column: event_ts, delay: 10 minutes }
        %s
        sink: { delta: { path: /memory/sink } }
        quarantine: { delta: { path: /memory/quarantine } }
        checkpoint: /memory/checkpoint
        """
        .formatted(
            mainIsTable ? tableSource : topicSource,
            mainIsTable ? "" : "format: " + json,
            mainIsTable ? topicSource : tableSource,
            mainIsTable ? "format: " + json : "",
            time,
            type,
            after);
  }

  private static final String SEED =
      "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES";

  private void createTable(StructType schema) throws IOException {
    tableStore = ObjectStores.open(dir.resolve("table").toString(), null);
    closing.add(tableStore);
    table = DeltaTable.open(tableStore, TableOptions.defaults());
    table.create(schema, List.of(), Map.of());
  }

  private void commit(List<JoinOracle.Event> events) throws IOException {
    try (AppendTransaction tx = table.newAppend(new TransactionId("writer", ++commits))) {
      for (JoinOracle.Event e : events) {
        tx.write(new Object[] {e.user(), Times.instant(e.micros()), e.id()});
      }
      tx.commit(Map.of());
    }
  }

  private void send(JoinOracle.Event e) {
    topicEvents.add(e);
    topic.append(
        0,
        e == null
            ? "not json"
            : "{\"user_id\":"
                + (e.user() == null ? "null" : "\"" + e.user() + "\"")
                + ",\"event_ts\":\""
                + Times.instant(e.micros())
                + "\",\"id\":\""
                + e.id()
                + "\"}");
  }

  /**
   * Clicks of 5 users every ~3 minutes (some late, a null key, one 'bad' id), purchases 5 minutes
   * before to 40 after a click; the table gets its side's events one commit per 6, the topic its
   * side's with a bad record now and then.
   */
  private void generate(Random random, int from, int to, boolean tableIsLeft) throws IOException {
    List<JoinOracle.Event> pending = new ArrayList<>();
    for (int i = from; i < to; i++) {
      long t = START + i * 3 * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 45 * MINUTE;
      }
      String user = i % 23 == 7 ? null : "u" + random.nextInt(5);
      JoinOracle.Event click = new JoinOracle.Event(user, t, i % 19 == 9 ? "bad" : "c" + i);
      JoinOracle.Event purchase =
          random.nextInt(3) > 0
              ? new JoinOracle.Event(user, t + (random.nextInt(46) - 5) * MINUTE, "p" + i)
              : null;
      JoinOracle.Event tableEvent = tableIsLeft ? click : purchase;
      JoinOracle.Event topicEvent = tableIsLeft ? purchase : click;
      if (tableEvent != null) {
        pending.add(tableEvent);
      }
      if (topicEvent != null) {
        send(topicEvent);
      }
      if (i % 11 == 3) {
        send(null);
      }
      if (pending.size() >= 6) {
        commit(pending);
        pending.clear();
      }
    }
    if (!pending.isEmpty()) {
      commit(pending);
    }
  }

  @Test
  void aTableAsTheMainInputJoinsAsTheOracleSaysAcrossARestart() throws Exception {
    createTable(EVENTS);
    Random random = new Random(25);
    PipelineSpec spec = PipelineParser.parse(yaml("main", SEED), "memory.yaml", Map.of());
    generate(random, 0, 40, true);
    runToEnd(spec);
    generate(random, 40, 80, true);
    runToEnd(spec);

    assertSinkIsTheOracles(spec, true);
    assertQuarantine(spec, true);
  }

  @Test
  void aTableAsTheSecondInputJoinsAsTheOracleSaysAcrossARestart() throws Exception {
    createTable(EVENTS);
    Random random = new Random(26);
    PipelineSpec spec = PipelineParser.parse(yaml("second", SEED), "memory.yaml", Map.of());
    generate(random, 0, 40, false);
    runToEnd(spec);
    generate(random, 40, 80, false);
    runToEnd(spec);

    assertSinkIsTheOracles(spec, false);
    assertQuarantine(spec, false);
  }

  private static final String WINDOW_COUNT =
      "aggregate: { window: { column: event_ts, size: 5 minutes }, group-by: [user_id],"
          + " measures: { n: count() } }";

  /**
   * The seed inner join with a table as the main input (the clicks), then a 5-minute window count
   * per user on the click time: equal to {@link JoinWindowOracle} over {@link JoinOracle}'s pairs
   * on the recorded cut, across a restart (both stores and the watermarks from the checkpoint).
   */
  @Test
  void aWindowCountAfterAJoinOfATableEqualsTheOracleAcrossARestart() throws Exception {
    assertWindowCountAfterTheJoin(true, new Random(27));
  }

  /** The same with the table as the second input (the purchases). */
  @Test
  void aWindowCountAfterAJoinWithATableAsTheSecondInputEqualsTheOracle() throws Exception {
    assertWindowCountAfterTheJoin(false, new Random(28));
  }

  private void assertWindowCountAfterTheJoin(boolean tableIsLeft, Random random) throws Exception {
    createTable(EVENTS);
    PipelineSpec spec =
        PipelineParser.parse(
            yaml(tableIsLeft ? "main" : "second", SEED, "inner", WINDOW_COUNT),
            "memory.yaml",
            Map.of());
    generate(random, 0, 50, tableIsLeft);
    runToEnd(spec);
    generate(random, 50, 100, tableIsLeft);
    runToEnd(spec);

    JoinWindowOracle.Counted expected =
        JoinWindowOracle.afterSeedInnerJoin(batches(spec, tableIsLeft));
    assertThat(expected.rows()).as("windows").hasSizeGreaterThan(15);

    StructType out = sinkSchema();
    assertThat(out.fieldNames()).containsExactly("window_start", "window_end", "user_id", "n");
    List<List<Object>> got = new ArrayList<>();
    for (Object[] row : TableContents.rows(sinkStore)) {
      got.add(Arrays.asList(row[0], row[1], row[2], ((Number) row[3]).longValue()));
    }
    assertThat(got).containsExactlyInAnyOrderElementsOf(expected.rows());
    assertQuarantine(spec, tableIsLeft);
  }

  @Test
  void aKeyOrTimeColumnTheTableLacksIsRefusedAtStartNamingTheFieldAndTheTable() throws Exception {
    createTable(
        StructType.of(
            StructField.nullable("customer", PrimitiveType.STRING),
            StructField.nullable("event_ts", PrimitiveType.STRING),
            StructField.nullable("id", PrimitiveType.STRING)));
    PipelineSpec spec = PipelineParser.parse(yaml("second", SEED), "memory.yaml", Map.of());
    assertThatThrownBy(() -> bind(spec))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("attribution")
        .hasMessageContaining("join[0].on: key 'user_id'")
        .hasMessageContaining("not a column of the second input's table " + dir.resolve("table"))
        .hasMessageContaining("[customer, event_ts, id]");

    ObjectStore other = ObjectStores.open(dir.resolve("typed").toString(), null);
    closing.add(other);
    DeltaTable typed = DeltaTable.open(other, TableOptions.defaults());
    typed.create(
        StructType.of(
            StructField.nullable("user_id", PrimitiveType.LONG),
            StructField.nullable("event_ts", PrimitiveType.STRING),
            StructField.nullable("id", PrimitiveType.STRING)),
        List.of(),
        Map.of());
    PipelineSpec typedSpec =
        PipelineParser.parse(
            yaml("second", SEED)
                .replace(dir.resolve("table").toString(), dir.resolve("typed").toString()),
            "memory.yaml",
            Map.of());
    assertThatThrownBy(
            () ->
                StreamJoinInputs.bind(
                    typedSpec,
                    Optional.empty(),
                    Optional.of(
                        new TableRowsInput(
                            dir.resolve("typed").toString(), typed.snapshot().schema()))))
        .isInstanceOf(PipelineDefinitionException.class)
        .hasMessageContaining("attribution")
        .hasMessageContaining("join[0].on: key 'user_id' is")
        .hasMessageContaining("join[0].time: column 'p_event_ts' of the right side is")
        .hasMessageContaining("not a timestamp")
        .hasMessageContaining(dir.resolve("typed").toString());
  }

  private CompiledPipeline bind(PipelineSpec spec) throws IOException {
    DeltaTableSource source = tableSource(spec);
    boolean mainIsTable = spec.deltaSource().isPresent();
    TableRowsInput rows = new TableRowsInput(dir.resolve("table").toString(), source.schema());
    return StreamJoinInputs.bind(
        spec,
        mainIsTable ? Optional.of(rows) : Optional.empty(),
        mainIsTable ? Optional.empty() : Optional.of(rows));
  }

  private DeltaTableSource tableSource(PipelineSpec spec) throws IOException {
    return spec.deltaSource().isPresent()
        ? PipelineFactory.deltaSource(spec, tableStore, false)
        : StreamJoinInputs.secondTable(spec, tableStore, false);
  }

  private Source topicSource() {
    return InMemorySource.of(topic, 7);
  }

  /** One "process": binds at start, runs available-now to the end, closes. */
  private void runToEnd(PipelineSpec spec) throws Exception {
    CompiledPipeline pipeline = bind(spec);
    Source source =
        spec.deltaSource().isPresent()
            ? new CompositeSource(tableSource(spec), topicSource())
            : new CompositeSource(topicSource(), tableSource(spec));
    Checkpoint checkpoint = PipelineFactory.checkpoint(spec, checkpointStore);
    TableSink sink = PipelineFactory.modeSink(pipeline, sinkStore);
    TableSink quarantine = StreamJoinInputs.quarantine(spec, quarantineStore);
    RecordProcessor processor =
        PipelineFactory.processor(
            pipeline, checkpointStore, dir.resolve("process-" + ++processes), sink);
    try {
      BatchBody.Settings settings =
          new BatchBody.Settings(
              spec.id(),
              source,
              processor,
              new ProgressLog(100),
              Clock.systemUTC(),
              Optional.empty());
      TriggerLoop loop =
          TriggerLoop.Batches.writeAheadLog(
              settings,
              checkpoint,
              new TableTxns(spec.id(), checkpoint.metadata().checkpointId()),
              Map.of(),
              new WriteAheadLog.Tables(sink, quarantine, Optional.empty()),
              WatermarkPolicy.OWN);
      loop.run(new TriggerSpec.AvailableNow());
      assertThat(processor.stateMetrics()).containsKeys("join.left.rows", "join.pairs");
    } finally {
      processor.close();
      source.close();
    }
  }

  private void assertSinkIsTheOracles(PipelineSpec spec, boolean tableIsLeft) throws Exception {
    List<JoinOracle.Batch> batches = batches(spec, tableIsLeft);
    JoinOracle.Expected expected =
        JoinOracle.compute(
            JoinOracle.Kind.LEFT,
            new JoinOracle.SideRules(true, w -> seedState(w, 30 * MINUTE)),
            new JoinOracle.SideRules(true, w -> seedState(w, 0)),
            (l, r) -> l <= r && r <= l + 30 * MINUTE,
            false,
            batches);
    List<List<Object>> want = new ArrayList<>();
    expected.output().forEach(want::addAll);
    assertThat(want).as("oracle output").isNotEmpty().anyMatch(row -> row.get(3) == null);
    assertThat(want).as("pairs").anyMatch(row -> row.get(3) != null);

    StructType out = sinkSchema();
    int[] columns =
        Arrays.stream(new String[] {"user_id", "event_ts", "id", "p_user_id", "p_event_ts", "p_id"})
            .mapToInt(out::indexOf)
            .toArray();
    assertThat(columns).doesNotContain(-1);
    List<List<Object>> got = new ArrayList<>();
    for (Object[] row : TableContents.rows(sinkStore)) {
      List<Object> values = new ArrayList<>();
      for (int c : columns) {
        values.add(row[c] instanceof Instant || row[c] == null ? row[c] : row[c].toString());
      }
      got.add(values);
    }
    assertThat(got).containsExactlyInAnyOrderElementsOf(want);
  }

  /** The join's inputs per batch of the cut the checkpoint recorded, with its watermarks. */
  private List<JoinOracle.Batch> batches(PipelineSpec spec, boolean tableIsLeft) throws Exception {
    Checkpoint checkpoint = PipelineFactory.checkpoint(spec, checkpointStore);
    List<JoinOracle.Batch> batches = new ArrayList<>();
    for (long b = 0; checkpoint.offsets(b).isPresent(); b++) {
      OffsetsEntry entry = checkpoint.offsets(b).get();
      BatchRange range = BatchRange.of(entry);
      List<JoinOracle.Event> fromTable =
          tableRows(
              tableIsLeft ? CompositeSource.mainPart(range) : CompositeSource.secondPart(range),
              spec);
      List<JoinOracle.Event> fromTopic = new ArrayList<>();
      BatchRange topicPart =
          tableIsLeft ? CompositeSource.secondPart(range) : CompositeSource.mainPart(range);
      OffsetRange r = topicPart.offsets().get(new SourcePartition("events", 0));
      for (long o = r.start(); o < r.end(); o++) {
        JoinOracle.Event e = topicEvents.get((int) o);
        if (e != null && !e.id().equals("bad")) {
          fromTopic.add(e);
        }
      }
      batches.add(
          new JoinOracle.Batch(
              tableIsLeft ? fromTable : fromTopic,
              tableIsLeft ? fromTopic : fromTable,
              entry.watermarkMicros().orElse(0),
              entry.lateWatermarkMicros().orElse(0)));
    }
    assertThat(batches.size()).as("batches").isGreaterThan(5);
    assertThat(batches)
        .as("batches with rows of both inputs")
        .anyMatch(b -> !b.left().isEmpty() && !b.right().isEmpty());
    return batches;
  }

  private StructType sinkSchema() throws IOException {
    return DeltaTable.open(sinkStore, TableOptions.defaults()).snapshot().schema();
  }

  /** The table's rows of a recorded range, read again by a fresh source (as a replay would). */
  private List<JoinOracle.Event> tableRows(BatchRange part, PipelineSpec spec) throws Exception {
    try (DeltaTableSource source = tableSource(spec)) {
      return JoinOracle.tableEvents(source, part).stream()
          .filter(e -> !"bad".equals(e.id()))
          .toList();
    }
  }

  /** Bad topic records with their topic provenance, 'bad' clicks with the table's. */
  private void assertQuarantine(PipelineSpec spec, boolean tableIsLeft) throws Exception {
    StructType schema =
        DeltaTable.open(quarantineStore, TableOptions.defaults()).snapshot().schema();
    assertThat(schema).isEqualTo(QuarantineRows.MIXED_SCHEMA);
    int input = schema.indexOf("input");
    int offset = schema.indexOf("offset");
    int sourceTable = schema.indexOf("source_table");
    int row = schema.indexOf("row");
    List<String> got = new ArrayList<>();
    for (Object[] q : TableContents.rows(quarantineStore)) {
      got.add(
          q[input]
              + " "
              + (q[offset] != null
                  ? "events@" + q[offset]
                  : q[sourceTable] + " " + q[row].toString().contains("\"id\":\"bad\"")));
    }
    List<String> want = new ArrayList<>();
    String topicInput = tableIsLeft ? "join[0]" : "main";
    for (int o = 0; o < topicEvents.size(); o++) {
      JoinOracle.Event e = topicEvents.get(o);
      if (e == null || (!tableIsLeft && e.id().equals("bad"))) {
        want.add(topicInput + " events@" + o);
      }
    }
    if (tableIsLeft) {
      long bad = 0;
      for (Object[] r : TableContents.rows(tableStore)) {
        if ("bad".equals(r[2])) {
          bad++;
        }
      }
      assertThat(bad).isPositive();
      for (long i = 0; i < bad; i++) {
        want.add("main " + dir.resolve("table") + " true");
      }
    }
    assertThat(got).containsExactlyInAnyOrderElementsOf(want);
    assertThat(want).anyMatch(w -> w.contains("events@"));
  }
}
