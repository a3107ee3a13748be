package dev.tributary.service.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Events for the seed query (README, "Stateful pipelines": watermark 10 minutes, dedup on
 * (event_id, event_ts), 5-minute tumbling windows per event_type with count and sum) and the
 * windows it must emit, for the group-mode tests. Events rise in event time with a jitter well
 * below the delay, so no row is late whatever the batch cuts; some are re-sent identically at once
 * (dedup drops them), some are malformed (quarantined); round-robin over the partitions.
 */
public final class SeedEvents {
  /** The query's YAML, after the format section: watermark, dedup, windows, append. */
  public static final String QUERY =
      """
      watermark: { column: event_ts, delay: 10 minutes }
      deduplicate: { keys: [event_id, event_ts] }
      aggregate:
        window: { column: event_ts, size: 5 minutes }
        group-by: [event_type]
        measures: { events: count(), amount: sum(amount) }
      output-mode: append
      """;

  /** The format section's schema of the events. */
  public static final String SCHEMA =
      "{ event_id: string, event_type: string, event_ts: timestamp, amount: \"decimal(10,2)\" }";

  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
  private static final String[] TYPES = {"view", "click", "cart", "buy", "search"};

  private final Random random;
  private final int partitions;
  private final long secondsApart;
  private final int jitterSeconds;
  private final int resendEvery;
  private final int malformedEvery;
  private final Map<String, long[]> windows = new TreeMap<>();
  private final List<String> malformed = new ArrayList<>();
  private final long[] nextOffset;
  private Instant max = T0;
  private int produced;

  /**
   * @param secondsApart event time between consecutive events; {@code jitterSeconds} added at
   *     random
   * @param resendEvery every n-th event is sent twice; {@code malformedEvery} every n-th record is
   *     not JSON (0: never)
   */
  public SeedEvents(
      long seed,
      int partitions,
      long secondsApart,
      int jitterSeconds,
      int resendEvery,
      int malformedEvery) {
    this.random = new Random(seed);
    this.partitions = partitions;
    this.secondsApart = secondsApart;
    this.jitterSeconds = jitterSeconds;
    this.resendEvery = resendEvery;
    this.malformedEvery = malformedEvery;
    this.nextOffset = new long[partitions];
  }

  /** Sends the next {@code count} events to a fresh topic (offsets counted from 0). */
  public void produce(KafkaTestBroker broker, String topic, int count) {
    // in event order over all partitions, five minutes of event time at a time (half the delay,
    // less the jitter): a plan never sees one partition so far ahead of another that an event is
    // late, whatever the batch cuts
    List<Map.Entry<Integer, String>> records = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      int i = produced++;
      int partition = i % partitions;
      if (malformedEvery > 0 && i % malformedEvery == malformedEvery - 1) {
        records.add(Map.entry(partition, "{\"event_id\": \"broken-" + i));
        malformed.add(partition + "@" + nextOffset[partition]++);
        continue;
      }
      Instant ts = T0.plusSeconds(i * secondsApart + random.nextInt(jitterSeconds));
      String type = TYPES[random.nextInt(TYPES.length)];
      BigDecimal amount = BigDecimal.valueOf(random.nextInt(10_000), 2);
      String json =
          "{\"event_id\":\"e"
              + i
              + "\",\"event_type\":\""
              + type
              + "\",\"event_ts\":\""
              + ts
              + "\",\"amount\":"
              + amount
              + "}";
      int copies = i % resendEvery == 0 ? 2 : 1;
      for (int c = 0; c < copies; c++) {
        records.add(Map.entry(partition, json));
        nextOffset[partition]++;
      }
      long[] w =
          windows.computeIfAbsent(
              Instant.ofEpochSecond(ts.getEpochSecond() / 300 * 300) + "|" + type,
              key -> new long[2]);
      w[0]++;
      w[1] += amount.unscaledValue().longValue();
      max = ts.isAfter(max) ? ts : max;
    }
    broker.sendInOrder(topic, records, chunkFor(Duration.ofMinutes(5)));
  }

  /** How many records span about {@code eventTime} of event time (at least one per partition). */
  private int chunkFor(Duration eventTime) {
    return (int) Math.max(partitions, eventTime.toSeconds() / Math.max(1, secondsApart));
  }

  /**
   * The windows that end at or before max(event time) - 10 minutes, rendered: what a drain emits.
   */
  public String expected() {
    long watermark = max.getEpochSecond() - 600;
    Map<String, long[]> out = new TreeMap<>(windows);
    out.keySet()
        .removeIf(
            k -> Instant.parse(k.substring(0, k.indexOf('|'))).getEpochSecond() + 300 > watermark);
    return render(out);
  }

  /** The malformed records as {@code partition@offset}. */
  public List<String> malformed() {
    return List.copyOf(malformed);
  }

  /** The seed query's sink table, rendered as {@link #expected}; a window written twice fails. */
  public static String windows(Path table) throws Exception {
    Map<String, long[]> out = new TreeMap<>();
    for (Map<String, Object> row : rows(table)) {
      String key = row.get("window_start") + "|" + row.get("event_type");
      long[] previous =
          out.put(
              key,
              new long[] {
                ((Number) row.get("events")).longValue(),
                ((BigDecimal) row.get("amount")).unscaledValue().longValue()
              });
      assertThat(previous).as("window %s written twice", key).isNull();
    }
    return render(out);
  }

  /** A quarantine table's records as {@code partition@offset}, in table order (duplicates kept). */
  public static List<String> quarantined(Path table) throws Exception {
    List<String> out = new ArrayList<>();
    for (Map<String, Object> row : rows(table)) {
      out.add(row.get("partition") + "@" + row.get("offset"));
    }
    return out;
  }

  /**
   * A Delta table's rows, each a map of column name to value, in the table's file order; none when
   * the table has no log yet (nothing committed).
   */
  public static List<Map<String, Object>> rows(Path table) throws Exception {
    List<Map<String, Object>> out = new ArrayList<>();
    if (!Files.exists(table.resolve("_delta_log"))) {
      return out;
    }
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      List<String> names = snapshot.schema().fieldNames();
      for (DataFile f : snapshot.files()) {
        for (Object[] values : DataFiles.readAll(store, f, snapshot.schema())) {
          Map<String, Object> row = new TreeMap<>();
          for (int c = 0; c < names.size(); c++) {
            row.put(names.get(c), values[c]);
          }
          out.add(row);
        }
      }
    }
    return out;
  }

  private static String render(Map<String, long[]> windows) {
    StringBuilder b = new StringBuilder();
    windows.forEach(
        (k, v) -> b.append(k).append('=').append(v[0]).append('/').append(v[1]).append('\n'));
    return b.toString();
  }
}
