package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.JoinOracle.seedState;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.pipeline.StreamJoinInputs;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed left outer join with a local Delta table as either input and a topic of the real broker
 * as the other (issue 25), from YAML through {@code PipelineRun} (the table opened and the join
 * bound at start, the table's range recorded as {@code stream.0.delta.*} or {@code delta.*}),
 * available-now in several batches, then a restart after both inputs grew: the sink equals {@link
 * JoinOracle} on the cut the checkpoint recorded, the quarantine (mixed layout) holds the topic's
 * bad records with their topic provenance, and late clicks are in the late-events table.
 */
class StreamJoinDeltaInputIT {
  private static final long MINUTE = 60_000_000L;
  private static final long START = 1_764_547_200_000_000L; // 2025-12-01T00:00:00Z
  private static final StructType EVENTS =
      StructType.of(
          StructField.nullable("user_id", PrimitiveType.STRING),
          StructField.nullable("event_ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("id", PrimitiveType.STRING));

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String topic;
  private Path file;

  /** The topic's events by partition in offset order (null: a bad record). */
  private final Map<Integer, List<JoinOracle.Event>> sent = new HashMap<>();

  private long commits;

  private void pipeline(boolean tableIsMain) throws Exception {
    topic = broker.createTopic(tableIsMain ? "purchases" : "clicks", 2);
    try (ObjectStore store = ObjectStores.open(table().toString(), null)) {
      DeltaTable.open(store, TableOptions.defaults()).create(EVENTS, List.of(), Map.of());
    }
    String tableSource = "{ delta: { path: \"" + table() + "\", max-files-per-trigger: 1 } }";
    String topicSource =
        "{ kafka: { bootstrap-servers: \""
            + broker.bootstrapServers()
            + "\", topics: ["
            + topic
            + "], max-offsets-per-trigger: 8 } }";
    String json = "{ json: { schema: { user_id: string, event_ts: timestamp, id: string } } }";
    file = dir.resolve("attribution.yaml");
    Files.writeString(
        file,
        """
        pipeline: attribution
        source: %s
        %s
        join:
          - stream:
              source: %s
              %s
              watermark: { column: event_ts, delay: 10 minutes }
              prefix: p_
            on: [user_id]
            time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
            type: left
        watermark: { column: event_ts, delay: 10 minutes }
        sink: { delta: { path: "%s/tables/attribution" } }
        quarantine: { delta: { path: "%s/tables/quarantine" } }
        late-events: { delta: { path: "%s/tables/late" } }
        checkpoint: "%s/checkpoint"
        """
            .formatted(
                tableIsMain ? tableSource : topicSource,
                tableIsMain ? "" : "format: " + json,
                tableIsMain ? topicSource : tableSource,
                tableIsMain ? "format: " + json : "",
                dir,
                dir,
                dir,
                dir));
  }

  private Path table() {
    return dir.resolve("tables/input");
  }

  @Test
  void aTableAsTheSecondInput() throws Exception {
    runTwice(false);
  }

  @Test
  void aTableAsTheMainInput() throws Exception {
    runTwice(true);
  }

  private void runTwice(boolean tableIsMain) throws Exception {
    pipeline(tableIsMain);
    Random random = new Random(tableIsMain ? 31 : 32);
    send(random, 0, 40, tableIsMain);
    List<BatchProgress> first = runAvailableNow();
    assertThat(first.size()).as("batches of the first run").isGreaterThan(3);
    assertSinkIsTheOracles(tableIsMain);
    send(random, 40, 80, tableIsMain);
    assertThat(runAvailableNow()).as("batches of the restarted run").isNotEmpty();
    assertSinkIsTheOracles(tableIsMain);

    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/quarantine").toString(), null)) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      assertThat(schema).isEqualTo(QuarantineRows.MIXED_SCHEMA);
      int input = schema.indexOf("input");
      int sourceTable = schema.indexOf("source_table");
      List<String> bad =
          TableContents.rows(store).stream()
              .map(r -> r[input] + " " + r[0] + "/" + r[1] + "/" + r[2] + " " + r[sourceTable])
              .toList();
      List<String> want = new ArrayList<>();
      sent.forEach(
          (p, events) -> {
            for (int o = 0; o < events.size(); o++) {
              if (events.get(o) == null) {
                want.add(
                    (tableIsMain ? "join[0] " : "main ") + topic + "/" + p + "/" + o + " null");
              }
            }
          });
      assertThat(want).isNotEmpty();
      assertThat(bad).containsExactlyInAnyOrderElementsOf(want);
    }
    try (ObjectStore store = ObjectStores.open(dir.resolve("tables/late").toString(), null)) {
      StructType late = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int operator = late.indexOf(LateEvents.OPERATOR);
      int id = late.indexOf("id");
      List<Object[]> rows = TableContents.rows(store);
      assertThat(rows).isNotEmpty();
      assertThat(rows).allSatisfy(r -> assertThat(r[operator]).isEqualTo("join"));
      assertThat(rows.stream().map(r -> r[id]).toList())
          .containsExactlyInAnyOrderElementsOf(expected(tableIsMain).lateIds());
    }
  }

  private List<BatchProgress> runAvailableNow() throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    ProgressLog progress = new ProgressLog(1000);
    try (PipelineRun run =
        PipelineRun.open(PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), progress)) {
      run.run();
    }
    return progress.last(1000);
  }

  /**
   * Clicks every ~3 minutes of 6 users (some late, a null key), purchases around them; the table's
   * side in commits of 5 rows, the topic's over 2 partitions with a bad record now and then.
   */
  private void send(Random random, int from, int to, boolean tableIsMain) throws Exception {
    Map<Integer, List<String>> values = new HashMap<>();
    List<JoinOracle.Event> pending = new ArrayList<>();
    for (int i = from; i < to; i++) {
      long t = START + i * 3 * MINUTE + (random.nextInt(9) - 4) * MINUTE;
      if (i % 17 == 5) {
        t -= 45 * MINUTE;
      }
      String user = i % 23 == 7 ? null : "u" + random.nextInt(6);
      JoinOracle.Event click = new JoinOracle.Event(user, t, "c" + i);
      JoinOracle.Event purchase =
          random.nextInt(3) > 0
              ? new JoinOracle.Event(user, t + (random.nextInt(46) - 5) * MINUTE, "p" + i)
              : null;
      JoinOracle.Event tableEvent = tableIsMain ? click : purchase;
      JoinOracle.Event topicEvent = tableIsMain ? purchase : click;
      if (tableEvent != null) {
        pending.add(tableEvent);
      }
      if (topicEvent != null) {
        add(i % 2, topicEvent, values);
      }
      if (i % 13 == 4) {
        add(i % 2, null, values);
      }
      if (pending.size() == 5) {
        commit(pending);
        pending.clear();
      }
    }
    if (!pending.isEmpty()) {
      commit(pending);
    }
    values.forEach((p, v) -> broker.send(topic, p, v));
  }

  private void add(int partition, JoinOracle.Event e, Map<Integer, List<String>> values) {
    sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(e);
    values.computeIfAbsent(partition, p -> new ArrayList<>()).add(json(e));
  }

  private void commit(List<JoinOracle.Event> events) throws Exception {
    try (ObjectStore store = ObjectStores.open(table().toString(), null);
        AppendTransaction tx =
            DeltaTable.open(store, TableOptions.defaults())
                .newAppend(new TransactionId("writer", ++commits))) {
      for (JoinOracle.Event e : events) {
        tx.write(new Object[] {e.user(), Times.instant(e.micros()), e.id()});
      }
      tx.commit(Map.of());
    }
  }

  private static String json(JoinOracle.Event e) {
    if (e == null) {
      return "not json";
    }
    return "{\"user_id\":"
        + (e.user() == null ? "null" : "\"" + e.user() + "\"")
        + ",\"event_ts\":\""
        + Times.instant(e.micros())
        + "\",\"id\":\""
        + e.id()
        + "\"}";
  }

  private record Expected(List<List<Object>> rows, List<String> lateIds) {}

  /** The oracle over every batch the checkpoint recorded (the table's parts read again). */
  private Expected expected(boolean tableIsMain) throws Exception {
    PipelineSpec spec = PipelineParser.parse(file, Map.of());
    List<JoinOracle.Batch> batches = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(dir.resolve("checkpoint").toString(), null);
        ObjectStore tableStore = ObjectStores.open(table().toString(), null)) {
      Checkpoint checkpoint = Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
      for (long b = 0; checkpoint.offsets(b).isPresent(); b++) {
        OffsetsEntry entry = checkpoint.offsets(b).get();
        BatchRange range = BatchRange.of(entry);
        BatchRange tablePart =
            tableIsMain ? CompositeSource.mainPart(range) : CompositeSource.secondPart(range);
        BatchRange topicPart =
            tableIsMain ? CompositeSource.secondPart(range) : CompositeSource.mainPart(range);
        List<JoinOracle.Event> fromTable;
        try (DeltaTableSource source =
            tableIsMain
                ? PipelineFactory.deltaSource(spec, tableStore, false)
                : StreamJoinInputs.secondTable(spec, tableStore, false)) {
          fromTable = JoinOracle.tableEvents(source, tablePart);
        }
        List<JoinOracle.Event> fromTopic = new ArrayList<>();
        topicPart
            .offsets()
            .forEach(
                (p, r) -> {
                  List<JoinOracle.Event> events = sent.getOrDefault(p.partition(), List.of());
                  for (long o = r.start(); o < r.end(); o++) {
                    JoinOracle.Event e = events.get((int) o);
                    if (e != null) {
                      fromTopic.add(e);
                    }
                  }
                });
        batches.add(
            new JoinOracle.Batch(
                tableIsMain ? fromTable : fromTopic,
                tableIsMain ? fromTopic : fromTable,
                entry.watermarkMicros().orElse(0),
                entry.lateWatermarkMicros().orElse(0)));
      }
    }
    JoinOracle.Expected expected =
        JoinOracle.compute(
            JoinOracle.Kind.LEFT,
            new JoinOracle.SideRules(true, w -> seedState(w, 30 * MINUTE)),
            new JoinOracle.SideRules(true, w -> seedState(w, 0)),
            (l, r) -> l <= r && r <= l + 30 * MINUTE,
            false,
            batches);
    List<List<Object>> rows = new ArrayList<>();
    expected.output().forEach(rows::addAll);
    List<String> late = new ArrayList<>();
    expected.late().forEach(b -> b.forEach(e -> late.add(e.id())));
    return new Expected(rows, late);
  }

  private void assertSinkIsTheOracles(boolean tableIsMain) throws Exception {
    Expected expected = expected(tableIsMain);
    assertThat(expected.rows()).isNotEmpty();
    assertThat(expected.rows()).as("some clicks matched nothing").anyMatch(r -> r.get(3) == null);
    assertThat(expected.rows()).as("some pairs").anyMatch(r -> r.get(3) != null);
    try (ObjectStore store =
        ObjectStores.open(dir.resolve("tables/attribution").toString(), null)) {
      List<List<Object>> got = JoinOracle.sinkRows(store);
      assertThat(got).containsExactlyInAnyOrderElementsOf(expected.rows());
    }
  }
}
