package dev.tributary.service.parse.avro;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.cli.Main;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link dev.tributary.service.engine.SchemaEvolutionCrashIT} for Avro, with a producer that
 * changes its writer schema mid-batch in all three ways: exactly once for {@code
 * schema-evolution.mode: add-columns} (rescue off) under kill -9. The pipeline runs from YAML in a
 * child JVM ({@code run --pipeline ... --available-now}) halted at each of the engine's crash
 * points in turn, each time in a batch (one round, {@link #MIX}) that mixes writer schemas from the
 * test registry (a child process): the declared {id, amount, note}; one that removed {@code note}
 * (the row lands with it null); one whose {@code amount} is a string, incompatible with the
 * declared long (the record is quarantined, its error naming the field); and one that adds the
 * round's new column (first carried by the batch's fourth record). A halt before the sink commit
 * leaves the column out of the table; the replay adds it again, in its commit; a halt after leaves
 * it there and the replay skips the batch. A halt after the quarantine commit but before the sink's
 * leaves the batch's quarantine rows committed: the replay must not write them twice. After a final
 * drain the table holds every good record exactly once with its values, the quarantine table holds
 * every incompatible record exactly once (the same (partition, offset) set, equal counts), every
 * new column was added by exactly one commit (its metaData action), rows written before a column
 * read null in it, and Delta Kernel reads the evolved table the same way.
 */
class AvroSchemaEvolutionCrashIT {
  private static final String[] POINTS = {
    CrashPoints.AFTER_PLAN,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG,
  };

  /** The writer schema of each record of a round, by position: the batch is one round. */
  private enum Kind {
    DECLARED,
    REMOVED_NOTE,
    AMOUNT_AS_STRING,
    NEW_COLUMN
  }

  private static final Kind[] MIX = {
    Kind.DECLARED, Kind.REMOVED_NOTE, Kind.AMOUNT_AS_STRING, Kind.NEW_COLUMN,
    Kind.REMOVED_NOTE, Kind.NEW_COLUMN, Kind.AMOUNT_AS_STRING, Kind.NEW_COLUMN,
  };
  private static final int PER_ROUND = MIX.length;
  private static final String DECLARED =
      """
      {"type": "record", "name": "Event", "fields": [{"name": "id", "type": "long"},
        {"name": "amount", "type": "long"}, {"name": "note", "type": ["null", "string"], "default": null}%s]}""";
  private static final String REMOVED_NOTE =
      """
      {"type": "record", "name": "Event", "fields": [{"name": "id", "type": "long"},
        {"name": "amount", "type": "long"}]}""";
  private static final String AMOUNT_AS_STRING =
      """
      {"type": "record", "name": "Event", "fields": [{"name": "id", "type": "long"},
        {"name": "amount", "type": "string"}, {"name": "note", "type": ["null", "string"], "default": null}]}""";

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private String topic;
  private int produced;

  /** id -> the new column its record carries (null: none), and that column's value. */
  private final Map<Integer, String> columnOf = new HashMap<>();

  /** id -> its writer schema's kind. */
  private final Map<Integer, Kind> kindOf = new HashMap<>();

  /**
   * The offset (= id) of every record with amount as a string -> the reason its quarantine row must
   * name.
   */
  private final Map<Long, String> incompatible = new TreeMap<>();

  private TestSchemaRegistry registry;

  @AfterEach
  void stopRegistry() throws Exception {
    if (registry != null) {
      registry.close();
    }
  }

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
            avro:
              registry: { url: "%s" }
              schema: { id: long, amount: long, note: string }
          schema-evolution: { mode: add-columns }
          sink:
            delta: { path: %s/table }
          checkpoint: %s/checkpoint
          """
              .formatted(broker.bootstrapServers(), topic, PER_ROUND, registry.url(), dir, dir));
    }
    return file;
  }

  /**
   * One round's records, by {@link #MIX}: with the declared writer schema {id, amount, note}, one
   * without note, one with amount as a string, and (when {@code column} is not null) one with the
   * new {@code column} too (registered now; without a column those records use the declared
   * schema).
   */
  private void produce(String column) throws Exception {
    String subject = topic + "-value";
    Schema declared = new Schema.Parser().parse(DECLARED.formatted(""));
    int declaredId = registry.registerAvro(subject, DECLARED.formatted(""));
    Schema removed = new Schema.Parser().parse(REMOVED_NOTE);
    int removedId = registry.registerAvro(subject, REMOVED_NOTE);
    Schema misfit = new Schema.Parser().parse(AMOUNT_AS_STRING);
    int misfitId = registry.registerAvro(subject, AMOUNT_AS_STRING);
    Schema wider = declared;
    int widerId = declaredId;
    if (column != null) {
      String text = DECLARED.formatted(", {\"name\": \"" + column + "\", \"type\": \"string\"}");
      wider = new Schema.Parser().parse(text);
      widerId = registry.registerAvro(subject, text);
    }
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (int i = 0; i < PER_ROUND; i++, produced++) {
        Kind kind = MIX[i] == Kind.NEW_COLUMN && column == null ? Kind.DECLARED : MIX[i];
        kindOf.put(produced, kind);
        GenericRecord r;
        int id;
        switch (kind) {
          case REMOVED_NOTE -> {
            r = new GenericData.Record(removed);
            id = removedId;
          }
          case AMOUNT_AS_STRING -> {
            r = new GenericData.Record(misfit);
            id = misfitId;
            incompatible.put(
                (long) produced,
                "value: field 'amount': writer schema id "
                    + misfitId
                    + " has a string, which does not fit the declared long");
          }
          case NEW_COLUMN -> {
            columnOf.put(produced, column);
            r = new GenericData.Record(wider);
            r.put(column, "v" + produced);
            id = widerId;
          }
          default -> {
            r = new GenericData.Record(declared);
            id = declaredId;
          }
        }
        r.put("id", (long) produced);
        r.put("amount", kind == Kind.AMOUNT_AS_STRING ? produced + " EUR" : produced * 10L);
        if (kind != Kind.REMOVED_NOTE) {
          r.put("note", "n" + produced);
        }
        producer
            .send(new ProducerRecord<>(topic, 0, null, AvroWire.encode(id, r.getSchema(), r)))
            .get();
      }
    }
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
    topic = broker.createTopic("avro-evolving", 1);
    registry = TestSchemaRegistry.start(dir.resolve("registry"));
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
                          "amount",
                          "note",
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
    assertQuarantinedOnce();
  }

  /**
   * The quarantine table holds exactly the records with amount as a string, each once (a replay
   * that wrote a committed batch's quarantine rows again, or lost them, fails here), each naming
   * the field.
   */
  private void assertQuarantinedOnce() throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("table-quarantine").toString(), null)) {
      StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
      int topicAt = schema.indexOf("topic");
      int partitionAt = schema.indexOf("partition");
      int offsetAt = schema.indexOf("offset");
      int errorAt = schema.indexOf("error");
      List<Object[]> rows = TableContents.rows(store);
      Map<List<Object>, String> byPosition = new HashMap<>();
      for (Object[] q : rows) {
        assertThat(q[topicAt]).isEqualTo(topic);
        assertThat(byPosition.put(List.of(q[partitionAt], q[offsetAt]), (String) q[errorAt]))
            .as("(partition, offset) (%s, %s) quarantined once", q[partitionAt], q[offsetAt])
            .isNull();
      }
      assertThat(rows).as("quarantine rows").hasSize(incompatible.size());
      Map<List<Object>, String> expected = new HashMap<>();
      incompatible.forEach((offset, reason) -> expected.put(List.of(0, offset), reason));
      assertThat(byPosition.keySet())
          .as("quarantined (partition, offset)s")
          .isEqualTo(expected.keySet());
      expected.forEach(
          (position, reason) ->
              assertThat(byPosition.get(position)).as("error of %s", position).contains(reason));
    }
  }

  /**
   * Every produced id but the quarantined ones once, with its amount, its note (null when its
   * writer schema removed it) and its new column's value; every other new column is null.
   */
  private void assertExpected(List<Object[]> rows, List<String> names, String reader) {
    assertThat(rows).as("%s: rows", reader).hasSize(produced - incompatible.size());
    Map<Long, Object[]> byId = new TreeMap<>();
    for (Object[] r : rows) {
      assertThat(byId.put((Long) r[0], r)).as("%s: id %s once", reader, r[0]).isNull();
    }
    Set<Long> good = new TreeSet<>();
    for (long id = 0; id < produced; id++) {
      if (!incompatible.containsKey(id)) {
        good.add(id);
      }
    }
    assertThat(byId.keySet()).as("%s: ids", reader).isEqualTo(good);
    for (Map.Entry<Long, Object[]> e : byId.entrySet()) {
      int id = e.getKey().intValue();
      assertThat(e.getValue()[1]).as("%s: id %d amount", reader, id).isEqualTo(id * 10L);
      Object note = kindOf.get(id) == Kind.REMOVED_NOTE ? null : "n" + id;
      assertThat(e.getValue()[2]).as("%s: id %d note", reader, id).isEqualTo(note);
      assertThat(e.getValue()[5]).as("%s: id %d _kafka_offset", reader, id).isEqualTo((long) id);
      for (int c = 7; c < names.size(); c++) {
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
