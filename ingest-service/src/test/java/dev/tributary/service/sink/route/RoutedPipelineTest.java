package dev.tributary.service.sink.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.sink.Sinks;
import dev.tributary.service.testing.CrashAt;
import dev.tributary.service.testing.InMemorySource;
import dev.tributary.service.testing.MemoryPipeline;
import dev.tributary.service.testing.MemoryPipeline.Model;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code sink.delta.route} through the real batch body, processor, routed sink and Delta tables, in
 * memory: rows land in the table their route names, invalid names and routes beyond {@code
 * max-routes} in the quarantine, and a crash at every point of a batch that lands in four tables
 * leaves every table equal to the batch computation of the whole stream (append and upsert).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RoutedPipelineTest {
  @TempDir Path dir;

  private static final String APPEND =
      """
      pipeline: routes
      source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
      format: { json: { schema: { id: long, t: string, v: string } } }
      sink: { delta: { path: "/memory/sink/{route}", route: "t", max-routes: 4 } }
      quarantine: { delta: { path: /memory/quarantine } }
      checkpoint: /memory/checkpoint
      """;

  private static final String UPSERT =
      APPEND.replace(
          "route: \"t\", max-routes: 4 }",
          "route: \"t\", max-routes: 4, write: upsert, key: [id],"
              + " delete-when: \"v LIKE 'del%'\" }");

  /** The routes of valid rows: four fit max-routes; "e" comes later, when they exist. */
  private static final List<String> ROUTES = List.of("a", "b", "c", "d");

  /** One record of the stream and where it must land. */
  private record Event(int partition, long offset, long id, String route, String v) {}

  /** The stream: ids 0..11 (partition id % 2), routes moving between records, some invalid. */
  private static final class Stream2 {
    final InMemorySource.Log topic = new InMemorySource.Log("events", 2);
    final List<Event> events = new ArrayList<>();

    void append(int from, int to) {
      for (int i = from; i < to; i++) {
        long id = i % 12;
        int partition = (int) (id % 2);
        String route;
        if (i % 10 == 3) {
          route = "bad/" + i; // not a folder name
        } else if (i % 10 == 7) {
          route = i % 20 == 7 ? ".." : null; // a parent folder, or no route at all
        } else if (i >= 40 && i % 5 == 1) {
          route = "e"; // a fifth route: beyond max-routes
        } else {
          route = ROUTES.get((i / 3) % 4);
        }
        String v = (i % 11 == 5 ? "del" : "v") + i; // with upsert: deletes its key in its table
        String json =
            route == null
                ? "{\"id\":%d,\"v\":\"%s\"}".formatted(id, v)
                : "{\"id\":%d,\"t\":\"%s\",\"v\":\"%s\"}".formatted(id, route, v);
        long offset = topic.append(partition, Long.toString(id), json);
        events.add(new Event(partition, offset, id, route, v));
      }
    }

    boolean lands(Event e) {
      return e.route() != null && ROUTES.contains(e.route());
    }

    /** Append: each table's rows as "id v", sorted, every landed record once. */
    Map<String, List<String>> appended() {
      Map<String, List<String>> out = new TreeMap<>();
      for (Event e : events) {
        if (lands(e)) {
          out.computeIfAbsent(e.route(), r -> new ArrayList<>()).add(e.id() + " " + e.v());
        }
      }
      out.values().forEach(l -> l.sort(null));
      return out;
    }

    /**
     * Upsert: each table's last row per id (a key's records are in one partition, in order); a
     * "del" row deletes its id from its table.
     */
    Map<String, List<String>> upserted() {
      Map<String, Map<Long, String>> last = new TreeMap<>();
      for (Event e : events) {
        if (lands(e)) {
          Map<Long, String> table = last.computeIfAbsent(e.route(), r -> new TreeMap<>());
          if (e.v().startsWith("del")) {
            table.remove(e.id());
          } else {
            table.put(e.id(), e.v());
          }
        }
      }
      Map<String, List<String>> out = new TreeMap<>();
      last.forEach(
          (route, rows) -> {
            List<String> l = new ArrayList<>();
            rows.forEach((id, v) -> l.add(id + " " + v));
            l.sort(null);
            out.put(route, l);
          });
      return out;
    }

    /** The quarantined records as "partition:offset", sorted, each once. */
    List<String> quarantined() {
      return events.stream()
          .filter(e -> !lands(e))
          .map(e -> e.partition() + ":" + e.offset())
          .sorted()
          .toList();
    }
  }

  private static MemoryPipeline.Process open(
      MemoryPipeline pipeline, InMemorySource.Log topic, long perPartition) throws Exception {
    return pipeline.open(
        InMemorySource.of(topic, perPartition),
        Model.WRITE_AHEAD_LOG,
        (compiled, txns) ->
            Sinks.open(
                compiled, txns, Optional.of(pipeline.sinkStore), new TriggerSpec.AvailableNow()));
  }

  private static void run(MemoryPipeline pipeline, InMemorySource.Log topic, long perPartition)
      throws Exception {
    try (MemoryPipeline.Process process = open(pipeline, topic, perPartition)) {
      process.loop().run(new TriggerSpec.AvailableNow());
    }
  }

  /** Every table under the sink folder, its rows as "id v", sorted. */
  private static Map<String, List<String>> tables(MemoryPipeline pipeline) throws Exception {
    Map<String, List<String>> out = new TreeMap<>();
    for (String route : RoutedSink.existingRoutes(pipeline.sinkStore)) {
      List<String> rows = new ArrayList<>();
      for (Object[] r : TableContents.rows(ObjectStores.under(pipeline.sinkStore, route))) {
        assertThat(r[1]).as("the row's route is its table").isEqualTo(route);
        rows.add(r[0] + " " + r[2]);
      }
      rows.sort(null);
      out.put(route, rows);
    }
    return out;
  }

  private static List<String> quarantined(MemoryPipeline pipeline) throws Exception {
    return pipeline.quarantineRows().stream().map(r -> r[1] + ":" + r[2]).sorted().toList();
  }

  @Test
  void rowsLandInTheTableOfTheirRouteAndTheRestInTheQuarantineWithTheReason() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(APPEND, dir);
    Stream2 stream = new Stream2();
    stream.append(0, 60);
    run(pipeline, stream.topic, 7);

    assertThat(tables(pipeline)).isEqualTo(stream.appended()).containsOnlyKeys(ROUTES);
    assertThat(quarantined(pipeline)).isEqualTo(stream.quarantined());
    List<String> errors =
        pipeline.quarantineRows().stream().map(r -> (String) r[6]).distinct().sorted().toList();
    assertThat(errors)
        .anyMatch(
            e ->
                e.startsWith(
                    "route value 'bad/3' (of t) cannot name a table folder: a table folder"
                        + " name holds only letters, digits"))
        .anyMatch(e -> e.startsWith("route value '..' (of t) cannot name a table folder"))
        .anyMatch(e -> e.startsWith("route (t) is null for this row"))
        .anyMatch(
            e ->
                e.startsWith("route value 'e' (of t) would be a new table under ")
                    && e.contains("but the 4 tables max-routes allows exist or were created"));
  }

  @Test
  void aTableCreatedByAnotherRunCountsTowardsMaxRoutes() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(APPEND, dir);
    Stream2 stream = new Stream2();
    stream.append(0, 12); // routes a..d
    run(pipeline, stream.topic, 100);
    assertThat(RoutedSink.existingRoutes(pipeline.sinkStore)).containsExactlyElementsOf(ROUTES);
    // the next process lists the four tables: "e" is refused, the four routes still land
    stream.append(40, 60);
    run(pipeline, stream.topic, 100);
    assertThat(tables(pipeline)).containsOnlyKeys(ROUTES);
    assertThat(quarantined(pipeline)).isEqualTo(stream.quarantined());
  }

  @Test
  void aRouteWhoseTableHasOtherColumnsGoesToTheQuarantineAndTheOthersLand() throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(APPEND, dir);
    DeltaTable.open(ObjectStores.under(pipeline.sinkStore, "b"), TableOptions.defaults())
        .create(
            new StructType(List.of(StructField.nullable("other", PrimitiveType.STRING))),
            List.of(),
            Map.of());
    Stream2 stream = new Stream2();
    stream.append(0, 12);
    run(pipeline, stream.topic, 100);

    Map<String, List<String>> expected = new TreeMap<>(stream.appended());
    expected.remove("b");
    Map<String, List<String>> landed = tables(pipeline);
    assertThat(TableContents.rows(ObjectStores.under(pipeline.sinkStore, "b"))).isEmpty();
    landed.remove("b");
    assertThat(landed).isEqualTo(expected);
    List<String> errors =
        pipeline.quarantineRows().stream().map(r -> (String) r[6]).distinct().toList();
    assertThat(errors)
        .anyMatch(
            e ->
                e.startsWith(
                        "route value 'b' (of t) names a table that cannot take the pipeline's rows:")
                    && e.contains("has schema [other string]"));
  }

  static Stream<CrashAt> crashPoints() {
    List<CrashAt> out = new ArrayList<>();
    for (String point :
        List.of(
            CrashPoints.AFTER_PLAN,
            CrashPoints.AFTER_OFFSETS_LOG,
            CrashPoints.AFTER_QUARANTINE_COMMIT,
            CrashPoints.AFTER_SINK_COMMIT,
            CrashPoints.AFTER_COMMITS_LOG)) {
      for (int n = 1; n <= 2; n++) {
        out.add(new CrashAt(point, n));
      }
    }
    // a batch lands in four tables: a crash after the data files of each, and between each two
    for (int n = 1; n <= 6; n++) {
      out.add(new CrashAt(CrashPoints.AFTER_DATA_FILES, n));
      out.add(new CrashAt(CrashPoints.AFTER_ROUTE_COMMIT, n));
    }
    for (int n : List.of(1, 9, 20)) {
      out.add(new CrashAt(CrashPoints.MID_BATCH, n));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "append {0}")
  @MethodSource("crashPoints")
  void aCrashAtAnyPointLeavesEveryAppendedTableEqualToTheBatchComputation(CrashAt crash)
      throws Exception {
    Stream2 stream = crashedThenFinished(APPEND, crash);
    assertThat(tables(lastPipeline)).isEqualTo(stream.appended());
    assertThat(quarantined(lastPipeline)).isEqualTo(stream.quarantined());
  }

  @ParameterizedTest(name = "upsert {0}")
  @MethodSource("crashPoints")
  void aCrashAtAnyPointLeavesEveryUpsertedTableEqualToTheBatchComputation(CrashAt crash)
      throws Exception {
    Stream2 stream = crashedThenFinished(UPSERT, crash);
    assertThat(tables(lastPipeline)).isEqualTo(stream.upserted());
    assertThat(quarantined(lastPipeline)).isEqualTo(stream.quarantined());
  }

  private MemoryPipeline lastPipeline;

  /**
   * Runs the stream's first 40 records crashing at {@code crash} (asserted to happen), then a new
   * process over the whole stream.
   */
  private Stream2 crashedThenFinished(String yaml, CrashAt crash) throws Exception {
    MemoryPipeline pipeline = MemoryPipeline.declared(yaml, dir);
    Stream2 stream = new Stream2();
    stream.append(0, 40);
    MemoryPipeline.Process first = open(pipeline, stream.topic, 10);
    assertThat(
            crash.runCrashing(
                () -> {
                  first.loop().run(new TriggerSpec.AvailableNow());
                  return null;
                }))
        .as("crashed at " + crash)
        .isTrue();
    first.close();
    stream.append(40, 60);
    run(pipeline, stream.topic, 10);
    lastPipeline = pipeline;
    return stream;
  }
}
