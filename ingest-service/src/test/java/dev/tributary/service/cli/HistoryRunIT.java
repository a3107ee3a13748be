package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code write: upsert} with {@code history: scd2} from a real broker through {@code run}: keyed
 * changes with late ones and deletes, over two runs; the history read by us and by Delta Kernel
 * equals the one computed from the changes sent (every version, ordered by {@code changed_at}).
 */
class HistoryRunIT {
  private static final int KEYS = 40;
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  /** Per key, its events by instant (seconds): a name (an upsert) or null (a delete). */
  private final Map<Long, TreeMap<Long, String>> events = new TreeMap<>();

  @Test
  void theHistoryHoldsEveryVersionForUsAndForKernel() throws Exception {
    String topic = broker.createTopic("history", 3);
    Path file = pipeline(topic);
    Random random = new Random(5);
    send(topic, changes(random, 300));
    run(file);
    assertHistory();
    send(topic, changes(random, 300));
    run(file);
    assertHistory();
  }

  /**
   * Random changes: each at an instant its key has not used, mostly after the key's latest (some
   * earlier: late changes), one in ten of a current key a delete by {@code op = 'd'}.
   */
  private List<Change> changes(Random random, int count) {
    List<Change> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long id = random.nextInt(KEYS);
      TreeMap<Long, String> key = events.computeIfAbsent(id, k -> new TreeMap<>());
      long latest = key.isEmpty() ? 1000 : key.lastKey();
      // a delete closes the current version (a delete of nothing is not recorded by the table)
      boolean delete =
          !key.isEmpty() && key.lastEntry().getValue() != null && random.nextInt(10) == 0;
      long at;
      do {
        at =
            !delete && random.nextInt(5) == 0
                ? 1000 + random.nextInt(5000)
                : latest + 1 + random.nextInt(50);
      } while (key.containsKey(at));
      String name = delete ? null : "v" + i;
      key.put(at, name);
      String json =
          "{\"id\":%d,\"name\":\"%s\",\"changed_at\":\"%s\",\"op\":\"%s\"}"
              .formatted(id, delete ? "gone" : name, Instant.ofEpochSecond(at), delete ? "d" : "u");
      out.add(new Change((int) (id % 3), Long.toString(id), json));
    }
    return out;
  }

  /** A record to send: its partition, key and value. */
  private record Change(int partition, String key, String value) {}

  /** The history the events make: each upsert lasts until its key's next event. */
  private TreeSet<String> expected() {
    TreeSet<String> out = new TreeSet<>();
    events.forEach(
        (id, byInstant) -> {
          String open = null;
          long from = 0;
          for (Map.Entry<Long, String> e : byInstant.entrySet()) {
            if (open != null) {
              out.add(id + " " + open + " [" + from + ", " + e.getKey() + ")");
            }
            open = e.getValue();
            from = e.getKey();
          }
          if (open != null) {
            out.add(id + " " + open + " [" + from + ", -) current");
          }
        });
    return out;
  }

  private void send(String topic, List<Change> records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      List<Future<?>> sent = new ArrayList<>();
      for (Change r : records) {
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    r.partition(),
                    r.key().getBytes(StandardCharsets.UTF_8),
                    r.value().getBytes(StandardCharsets.UTF_8))));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    }
  }

  private void assertHistory() throws Exception {
    try (ObjectStore table = ObjectStores.open(dir.resolve("table").toString(), null)) {
      KernelReader kernel = new KernelReader(table);
      List<String> columns = kernel.columnNames();
      assertThat(columns).endsWith("_valid_from", "_valid_to", "_is_current");
      TreeSet<String> expected = expected();
      assertThat(expected).hasSizeGreaterThan(KEYS);
      assertThat(show(TableContents.rows(table), columns)).isEqualTo(expected);
      assertThat(show(kernel.rows(), columns)).isEqualTo(expected);
    }
    try (ObjectStore quarantine = ObjectStores.open(dir.resolve("quarantine").toString(), null)) {
      assertThat(TableContents.rows(quarantine)).isEmpty();
    }
  }

  /** Rows as "id name [from, to) current", instants in seconds; checks the rows are distinct. */
  private static TreeSet<String> show(List<Object[]> rows, List<String> columns) {
    int from = columns.indexOf("_valid_from");
    int to = columns.indexOf("_valid_to");
    int current = columns.indexOf("_is_current");
    TreeSet<String> out = new TreeSet<>();
    for (Object[] r : rows) {
      assertThat(r[current]).isEqualTo(r[to] == null);
      String version =
          r[0]
              + " "
              + r[1]
              + " ["
              + ((Instant) r[from]).getEpochSecond()
              + ", "
              + (r[to] == null ? "-" : Long.toString(((Instant) r[to]).getEpochSecond()))
              + ")"
              + (Boolean.TRUE.equals(r[current]) ? " current" : "");
      assertThat(out.add(version)).as("%s once", version).isTrue();
    }
    return out;
  }

  private Path pipeline(String topic) throws Exception {
    Path file = dir.resolve("customers.yaml");
    Files.writeString(
        file,
        """
        pipeline: history-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 100
        format: { json: { schema: { id: long, name: string, changed_at: timestamp, op: string } } }
        sink:
          delta:
            path: %s
            write: upsert
            key: [id]
            sequence-by: changed_at
            delete-when: "op = 'd'"
            history: scd2
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

  private static void run(Path file) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", "--pipeline", file.toString(), "--available-now"},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
  }
}
