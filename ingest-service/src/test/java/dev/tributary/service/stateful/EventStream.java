package dev.tributary.service.stateful;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random event streams for the stateful tests: events mostly in order with jitter, some far behind
 * (late), duplicates re-sent later (same id and time), and some ids reused with another time. Rows
 * follow the example pipelines' schema plus the Kafka columns.
 */
final class EventStream {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String[] TYPES = {"click", "view", "buy"};

  /** One event, as sent. */
  record Event(
      String id,
      String user,
      String type,
      Instant ts,
      BigDecimal amount,
      Integer quantity,
      long offset,
      int partition) {
    /** The row in the order of {@code columns} (the stateful plan's input schema). */
    Object[] row(List<String> columns) {
      Object[] row = new Object[columns.size()];
      for (int i = 0; i < row.length; i++) {
        row[i] =
            switch (columns.get(i)) {
              case "_kafka_topic" -> "events";
              case "_kafka_partition" -> partition;
              case "_kafka_offset" -> offset;
              case "_kafka_timestamp" -> T0;
              default -> Oracle.value(this, columns.get(i));
            };
      }
      return row;
    }
  }

  private EventStream() {}

  static List<Event> generate(long seed, int count) {
    return generate(seed, count, 1, 0);
  }

  /**
   * Like {@link #generate(long, int)}, over {@code partitions} source partitions: partition p's
   * events are {@code p * lagSeconds} behind partition 0's (a consumer that is behind on some
   * partitions, as in a backfill); a re-sent duplicate stays in its original's partition.
   */
  static List<Event> generate(long seed, int count, int partitions, long lagSeconds) {
    Random r = new Random(seed);
    Random partitionOf = new Random(seed * 17 + 3);
    List<Event> out = new ArrayList<>();
    long clock = 0;
    for (int i = 0; i < count; i++) {
      clock += r.nextInt(90);
      double p = r.nextDouble();
      if (p < 0.15 && !out.isEmpty()) {
        Event d = out.get(Math.max(0, out.size() - 1 - r.nextInt(Math.min(out.size(), 60))));
        out.add(
            new Event(
                d.id(), d.user(), d.type(), d.ts(), d.amount(), d.quantity(), i, d.partition()));
        continue;
      }
      long seconds = clock - r.nextInt(180);
      if (p > 0.90) {
        seconds = clock - 900 - r.nextInt(2700);
      }
      String id = p < 0.20 && !out.isEmpty() ? out.get(r.nextInt(out.size())).id() : "e" + i;
      Integer quantity = r.nextInt(20) == 0 ? null : 1 + r.nextInt(10);
      BigDecimal amount = r.nextInt(20) == 0 ? null : BigDecimal.valueOf(r.nextInt(100_000), 2);
      int partition = partitions == 1 ? 0 : partitionOf.nextInt(partitions);
      out.add(
          new Event(
              id,
              "u" + r.nextInt(5),
              TYPES[r.nextInt(TYPES.length)],
              T0.plusSeconds(seconds - partition * lagSeconds).plusNanos(1000L * r.nextInt(1000)),
              amount,
              quantity,
              i,
              partition));
    }
    return out;
  }

  /** Cuts the stream into consecutive batches of random sizes (empty batches included). */
  static List<List<Event>> batches(List<Event> events, long seed) {
    Random r = new Random(seed * 31 + 7);
    List<List<Event>> out = new ArrayList<>();
    int i = 0;
    while (i < events.size()) {
      int n = r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(60);
      out.add(events.subList(i, Math.min(events.size(), i + n)));
      i += n;
    }
    return out;
  }
}
