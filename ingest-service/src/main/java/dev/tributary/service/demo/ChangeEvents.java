package dev.tributary.service.demo;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Generates the CDC demo's change stream: the Debezium JSON events (without the converter's schema
 * part) a PostgreSQL connector writes for a {@code customers} table — a snapshot ({@code op r}),
 * then inserts, updates and deletes (each delete followed by its tombstone), plus replays of a
 * key's last events as a connector re-sends them after a restart. Each key's events go to one
 * partition (by key), as Debezium's do. Deterministic for a given seed.
 *
 * <p>It also keeps what the database went through, so the demo (and its test) can compare the
 * tables with the truth: {@link Stream#database()}, the rows at the end, and {@link
 * Stream#history()}, every version of every row with the time it held.
 */
public final class ChangeEvents {
  /** The topic's partitions: a key's events all go to {@code id % PARTITIONS}. */
  public static final int PARTITIONS = 3;

  private static final String[] NAMES = {
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"
  };
  private static final String[] TIERS = {"bronze", "silver", "gold", "platinum"};

  /**
   * One Kafka record to produce.
   *
   * @param partition the key's partition
   * @param key the record key, Debezium's {@code {"customer_id": …}}
   * @param value the change event; null for a tombstone
   * @param timestampMs the record's timestamp: the change's time in the database
   */
  public record Change(int partition, byte[] key, byte[] value, long timestampMs) {}

  /** A row of the source table. */
  public record Row(long customerId, String name, String tier) {}

  /**
   * One version of a row: {@code row} held from {@code fromMs} until {@code toMs} (null: still
   * current).
   */
  public record Version(Row row, long fromMs, Long toMs) {}

  /**
   * What was generated.
   *
   * @param changes the records, in the order to produce them
   * @param database the table's rows at the end, by customer id
   * @param history every version of every row, by customer id, in time order
   * @param snapshotReads {@code op r} events
   * @param inserts {@code op c} events
   * @param updates {@code op u} events
   * @param deletes {@code op d} events (each followed by a tombstone)
   * @param replayed events sent again
   */
  public record Stream(
      List<Change> changes,
      Map<Long, Row> database,
      Map<Long, List<Version>> history,
      int snapshotReads,
      int inserts,
      int updates,
      int deletes,
      int replayed) {

    /** The records by kind, adding up to the number of records produced. */
    public String describe() {
      return String.format(
          "%,d snapshot reads, %,d inserts, %,d updates, %,d deletes + %,d tombstones,"
              + " %,d events replayed",
          snapshotReads, inserts, updates, deletes, deletes, replayed);
    }

    /** The number of versions in {@link #history()}. */
    public int versions() {
      return history.values().stream().mapToInt(List::size).sum();
    }
  }

  private final Random random;
  private final List<Change> changes = new ArrayList<>();
  private final Map<Long, Row> database = new TreeMap<>();
  private final Map<Long, List<Version>> history = new TreeMap<>();

  /** Per key, the envelopes sent for it (replays re-send the last ones). */
  private final Map<Long, List<Change>> sent = new TreeMap<>();

  private long clockMs;
  private int snapshotReads;
  private int inserts;
  private int updates;
  private int deletes;
  private int replayed;

  private ChangeEvents(Instant start, long seed) {
    this.random = new Random(seed);
    this.clockMs = start.toEpochMilli();
  }

  /**
   * @param count about the number of records to produce (tombstones and replays included)
   * @param start the time of the first change; changes advance one second each
   */
  public static Stream generate(int count, Instant start, long seed) {
    ChangeEvents events = new ChangeEvents(start, seed);
    int customers = Math.max(10, Math.min(200, count / 10));
    for (long id = 1; id <= customers; id++) {
      events.write("r", id);
    }
    while (events.changes.size() < count) {
      events.step(customers);
    }
    return new Stream(
        Collections.unmodifiableList(events.changes),
        Collections.unmodifiableMap(events.database),
        Collections.unmodifiableMap(events.history),
        events.snapshotReads,
        events.inserts,
        events.updates,
        events.deletes,
        events.replayed);
  }

  private void step(int customers) {
    if (random.nextInt(20) == 0) {
      replay();
      return;
    }
    // ids a little beyond the snapshot's, so that new customers arrive over time
    long id = 1 + random.nextInt(customers + customers / 2);
    if (!database.containsKey(id)) {
      write("c", id);
    } else if (random.nextInt(4) == 0) {
      write("d", id);
    } else {
      write("u", id);
    }
  }

  /** A connector restart: a key's last one to three events again, in their order. */
  private void replay() {
    List<Long> keys = new ArrayList<>(sent.keySet());
    List<Change> events = sent.get(keys.get(random.nextInt(keys.size())));
    int n = Math.min(events.size(), 1 + random.nextInt(3));
    for (Change c : events.subList(events.size() - n, events.size())) {
      changes.add(c);
      replayed++;
    }
  }

  /** One change of row {@code id} by {@code op}: the event, the database and its history. */
  private void write(String op, long id) {
    clockMs += 1000;
    Row before = database.get(id);
    Row after =
        op.equals("d")
            ? null
            : new Row(id, NAMES[random.nextInt(NAMES.length)], TIERS[random.nextInt(TIERS.length)]);
    switch (op) {
      case "r" -> snapshotReads++;
      case "c" -> inserts++;
      case "u" -> updates++;
      default -> deletes++;
    }
    Change event =
        new Change(partition(id), key(id), bytes(envelope(op, before, after, clockMs)), clockMs);
    changes.add(event);
    sent.computeIfAbsent(id, k -> new ArrayList<>()).add(event);
    List<Version> versions = history.computeIfAbsent(id, k -> new ArrayList<>());
    if (before != null) {
      Version open = versions.remove(versions.size() - 1);
      versions.add(new Version(open.row(), open.fromMs(), clockMs));
    }
    if (after == null) {
      database.remove(id);
      changes.add(new Change(partition(id), key(id), null, clockMs));
    } else {
      database.put(id, after);
      versions.add(new Version(after, clockMs, null));
    }
  }

  private static int partition(long id) {
    return (int) (id % PARTITIONS);
  }

  private static byte[] key(long id) {
    return bytes("{\"customer_id\":" + id + "}");
  }

  private static String envelope(String op, Row before, Row after, long tsMs) {
    return "{\"before\":%s,\"after\":%s,\"source\":{\"version\":\"2.7.0.Final\",\"connector\":\"postgresql\",\"name\":\"shop\",\"ts_ms\":%d,\"db\":\"shop\",\"schema\":\"public\",\"table\":\"customers\"},\"op\":\"%s\",\"ts_ms\":%d}"
        .formatted(json(before), json(after), tsMs, op, tsMs + 40);
  }

  private static String json(Row row) {
    return row == null
        ? "null"
        : "{\"customer_id\":%d,\"name\":\"%s\",\"tier\":\"%s\"}"
            .formatted(row.customerId(), row.name(), row.tier());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
