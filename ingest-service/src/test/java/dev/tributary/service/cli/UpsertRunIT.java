package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code write: upsert} from a real broker through {@code run}: keyed change records with updates,
 * replays of older versions, {@code delete-when} deletes and tombstones, over several runs; the
 * table read by us and by Delta Kernel equals the last version of each key, and its history shows
 * MERGE commits.
 */
class UpsertRunIT {
  private static final int KEYS = 200;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  /** The expected table: id to "name@version", from the changes as the producer sent them. */
  private final Map<Long, String> expected = new TreeMap<>();

  private final Map<Long, Long> versions = new TreeMap<>();

  @Test
  void theTableHoldsTheLastVersionOfEveryKeyForUsAndForKernel() throws Exception {
    String topic = broker.createTopic("upsert", 3);
    Path file = pipeline(topic);
    Random random = new Random(22);
    send(topic, changes(random, 600));
    assertThat(run(file)).isZero();
    assertTable();
    send(topic, changes(random, 900));
    assertThat(run(file)).isZero();
    assertTable();
    try (ObjectStore table = ObjectStores.open(dir.resolve("table").toString(), null)) {
      DeltaLog log = new DeltaLog(table);
      List<Object> operations = new ArrayList<>();
      for (long v : log.commitsAfter(0)) {
        log.readCommit(v).stream()
            .filter(CommitInfo.class::isInstance)
            .forEach(a -> operations.add(((CommitInfo) a).values().get("operation")));
      }
      assertThat(operations).isNotEmpty().containsOnly("MERGE");
    }
  }

  /**
   * Random changes of {@link #KEYS} keys, each key always in the same partition (as Kafka's default
   * partitioner keeps it): mostly upserts with a growing version, some replays of an older version
   * (ignored), some deletes by {@code op = 'd'} and some tombstones. A key is never replayed older
   * after a delete: the table cannot know a deleted row's version (docs/PIPELINE_REFERENCE.md).
   */
  private List<Change> changes(Random random, int count) {
    List<Change> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long id = random.nextInt(KEYS);
      int partition = (int) (id % 3);
      byte[] key = Long.toString(id).getBytes(StandardCharsets.UTF_8);
      long version = versions.getOrDefault(id, 0L);
      int dice = random.nextInt(20);
      String value;
      if (dice == 0 && expected.containsKey(id)) {
        value = null; // tombstone
        expected.remove(id);
      } else if (dice == 1 && expected.containsKey(id)) {
        versions.put(id, version + 1);
        value = json(id, "deleted", version + 1, "d");
        expected.remove(id);
      } else if (dice == 2 && expected.containsKey(id) && version > 1) {
        value = json(id, "stale", version - 1, "u"); // older than the table's row: ignored
      } else {
        versions.put(id, version + 1);
        value = json(id, "v" + (version + 1), version + 1, "u");
        expected.put(id, "v" + (version + 1) + "@" + (version + 1));
      }
      out.add(new Change(partition, key, value));
    }
    return out;
  }

  /** A record to send: its partition, key and value (null: a tombstone). */
  private record Change(int partition, byte[] key, String value) {}

  private static String json(long id, String name, long version, String op) {
    return "{\"id\":%d,\"name\":\"%s\",\"version\":%d,\"op\":\"%s\"}"
        .formatted(id, name, version, op);
  }

  private void send(String topic, List<Change> records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<?>> sent = new ArrayList<>();
      for (Change r : records) {
        byte[] value = r.value() == null ? null : r.value().getBytes(StandardCharsets.UTF_8);
        sent.add(producer.send(new ProducerRecord<>(topic, r.partition(), r.key(), value)));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    }
  }

  private void assertTable() throws Exception {
    try (ObjectStore table = ObjectStores.open(dir.resolve("table").toString(), null)) {
      Map<Long, String> ours = new TreeMap<>();
      for (Object[] r : TableContents.rows(table)) {
        assertThat(ours.put((Long) r[0], r[1] + "@" + r[2])).as("id %s once", r[0]).isNull();
      }
      assertThat(ours).isEqualTo(expected);
      Map<Long, String> kernel = new TreeMap<>();
      for (Object[] r : new KernelReader(table).rows()) {
        kernel.put((Long) r[0], r[1] + "@" + r[2]);
      }
      assertThat(kernel).isEqualTo(expected);
    }
    try (ObjectStore quarantine = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      assertThat(TableContents.rows(quarantine)).isEmpty();
    }
  }

  private Path pipeline(String topic) throws Exception {
    Path file = dir.resolve("customers.yaml");
    Files.writeString(
        file,
        """
        pipeline: upsert-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 250
        format: { json: { schema: { id: long, name: string, version: long, op: string } } }
        sink:
          delta:
            path: %s
            write: upsert
            key: [id]
            sequence-by: version
            delete-when: "op = 'd'"
        quarantine: { delta: { path: %s } }
        checkpoint: %s
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                dir.resolve("table"),
                dir.resolve("quarantine"),
                dir.resolve("checkpoint")));
    return file;
  }

  private static int run(Path file) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", "--pipeline", file.toString(), "--available-now"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return code;
  }
}
