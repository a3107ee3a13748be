package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.cli.Main;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once for {@code schema-evolution.mode: add-columns} under kill -9: the pipeline runs from
 * YAML in a child JVM ({@code run --pipeline ... --available-now}) halted at each of the engine's
 * crash points in turn, each time in a batch whose records bring a column the table does not have
 * yet (a new one per round, first carried by the batch's fourth record). A halt before the sink
 * commit leaves the column out of the table; the replay adds it again, in its commit; a halt after
 * leaves it there and the replay skips the batch. After a final drain the table holds every record
 * once, every new column was added by exactly one commit (its metaData action), rows written before
 * a column read null in it, and Delta Kernel reads the evolved table the same way.
 */
class SchemaEvolutionCrashIT {
  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG,
  };
  private static final int PER_ROUND = 8;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String topic;
  private int produced;

  /** id -> the new column its record carries (null: none), and that column's value. */
  private final Map<Integer, String> columnOf = new HashMap<>();

  private Path pipeline() throws Exception {
    Path file = dir.resolve("events.yaml");
    if (!Files.exists(file)) {
      Files.writeString(
          file,
          """
          pipeline: evolving-events
          source:
            kafka:
              bootstrap-servers: %s
              topics: [%s]
              max-offsets-per-trigger: %d
          format:
            json:
              schema:
                id: long
          schema-evolution: { mode: add-columns }
          sink:
            delta: { path: %s/table }
          checkpoint: %s/checkpoint
          """
              .formatted(broker.bootstrapServers(), topic, PER_ROUND, dir, dir));
    }
    return file;
  }

  /** One round's records: the first three as declared, the rest also carrying {@code column}. */
  private void produce(String column) {
    List<String> records = new ArrayList<>();
    for (int i = 0; i < PER_ROUND; i++, produced++) {
      if (column != null && i >= 3) {
        columnOf.put(produced, column);
        records.add("{\"id\":" + produced + ",\"" + column + "\":\"v" + produced + "\"}");
      } else {
        records.add("{\"id\":" + produced + "}");
      }
    }
    broker.send(topic, 0, records);
  }

  private Process child(String crashAt, Path log) throws Exception {
    List<String> jvm =
        new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    if (crashAt != null) {
      jvm.add("-Dtributary.test.crash-at=" + crashAt);
    }
    return ChildJvm.start(
        jvm,
        Main.class.getName(),
        List.of("run", "--pipeline", pipeline().toString(), "--available-now"),
        log,
        dir);
  }

  @Test
  void everyRecordOnceAndEveryNewColumnAddedOnceAfterAHaltAtEveryCrashPoint() throws Exception {
    topic = broker.createTopic("evolving", 1);
    produce(null); // batch 0: the table is made without any new column
    for (int i = 0; i < POINTS.length; i++) {
      produce("col_" + i); // the next batch is exactly this round: it first carries col_i
      // the first run commits batch 0 first and halts in batch 1 (after-plan's second time)
      int occurrence = POINTS[i].equals(CrashPoints.MID_BATCH) ? 5 : i == 0 ? 2 : 1;
      String crashAt = POINTS[i] + ":" + occurrence;
      Path log = dir.resolve("run-" + i + ".log");
      Process child = child(crashAt, log);
      CrashRuns.assertHaltedAt(child, crashAt, log);
    }
    Path drainLog = dir.resolve("drain.log");
    Process drain = child(null, drainLog);
    CrashRuns.assertFinished(drain, drainLog);

    try (ObjectStore store = ObjectStores.open(dir.resolve("table").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      StructType schema = table.snapshot().schema();
      List<String> added = new ArrayList<>();
      for (int i = 0; i < POINTS.length; i++) {
        added.add("col_" + i);
      }
      assertThat(schema.fieldNames())
          .containsExactly(
              concat(
                      List.of(
                          "id",
                          "_kafka_topic",
                          "_kafka_partition",
                          "_kafka_offset",
                          "_kafka_timestamp"),
                      added)
                  .toArray(String[]::new));
      assertThat(addingCommits(store, table.snapshot().version(), added))
          .as("each column added by exactly one commit")
          .allSatisfy((column, commits) -> assertThat(commits).as(column).isEqualTo(1));

      assertExpected(TableContents.rows(store), schema.fieldNames(), "our reader");
      KernelReader kernel = new KernelReader(store);
      assertThat(kernel.columnNames()).isEqualTo(schema.fieldNames());
      assertExpected(kernel.rows(), kernel.columnNames(), "Delta Kernel");
    }
  }

  /** Every produced id once; its new column holds its value, every other new column is null. */
  private void assertExpected(List<Object[]> rows, List<String> names, String reader) {
    Map<Long, Object[]> byId = new TreeMap<>();
    for (Object[] r : rows) {
      assertThat(byId.put((Long) r[0], r)).as("%s: id %s once", reader, r[0]).isNull();
    }
    assertThat(byId).as(reader).hasSize(produced);
    for (Map.Entry<Long, Object[]> e : byId.entrySet()) {
      int id = e.getKey().intValue();
      for (int c = 5; c < names.size(); c++) {
        Object value = c < e.getValue().length ? e.getValue()[c] : null;
        Object expected = names.get(c).equals(columnOf.get(id)) ? "v" + id : null;
        assertThat(value).as("%s: id %d column %s", reader, id, names.get(c)).isEqualTo(expected);
      }
    }
  }

  /**
   * Per column: how many commits hold a metaData action that adds it (its schema has it, the one
   * before not).
   */
  private static Map<String, Integer> addingCommits(
      ObjectStore store, long latest, List<String> columns) throws Exception {
    DeltaLog log = new DeltaLog(store);
    Map<String, Integer> count = new TreeMap<>();
    columns.forEach(c -> count.put(c, 0));
    String previous = "";
    for (long v = 0; v <= latest; v++) {
      for (Action a : log.readCommit(v)) {
        if (a instanceof Metadata m) {
          for (String c : columns) {
            if (m.schemaString().contains("\"" + c + "\"") && !previous.contains("\"" + c + "\"")) {
              count.merge(c, 1, Integer::sum);
            }
          }
          previous = m.schemaString();
        }
      }
    }
    return count;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
