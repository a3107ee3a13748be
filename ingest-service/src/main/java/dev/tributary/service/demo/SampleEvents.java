package dev.tributary.service.demo;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Generates the demo's order events: mostly well-formed JSON in roughly event-time order, plus the
 * things a real topic carries: exact duplicates (producer retries), late events (a device that was
 * offline), and malformed records (bad JSON, wrong types) that must end up in quarantine.
 * Deterministic for a given seed.
 */
public final class SampleEvents {
  /**
   * What was generated, so the demo (and tests) can state what to expect.
   *
   * @param values the records, in the order to produce them
   * @param valid well-formed orders, the late ones included ({@link #onTime()} + {@link #late()})
   * @param duplicates exact copies of recent valid orders (producer retries)
   * @param late valid orders whose event time is two hours behind the others
   * @param malformed records that cannot be parsed (bad JSON, wrong types)
   */
  public record Batch(List<byte[]> values, int valid, int duplicates, int late, int malformed) {

    /** Valid orders that are not late: with late, duplicates and malformed, every record once. */
    public int onTime() {
      return valid - late;
    }

    /**
     * The records by kind, each counted once so that they add up to the number produced: {@code
     * 19,386 orders on time, 188 orders 2 hours late, 213 exact duplicates, 213 malformed}.
     */
    public String describe() {
      return String.format(
          "%,d orders on time, %,d orders 2 hours late, %,d exact duplicates, %,d malformed",
          onTime(), late, duplicates, malformed);
    }
  }

  private static final String[] CUSTOMERS = {
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"
  };

  private SampleEvents() {}

  /**
   * @param count number of records to produce (duplicates and malformed ones included)
   * @param start event time of the first event; events advance about one second each
   */
  public static Batch generate(int count, Instant start, long seed) {
    Random random = new Random(seed);
    List<byte[]> values = new ArrayList<>(count);
    List<String> previous = new ArrayList<>();
    int duplicates = 0;
    int late = 0;
    int malformed = 0;
    int valid = 0;
    for (int i = 0; i < count; i++) {
      int dice = random.nextInt(200);
      String json;
      if (dice < 2 && !previous.isEmpty()) {
        json = previous.get(random.nextInt(previous.size()));
        duplicates++;
      } else if (dice < 4) {
        json = malformed(random, i);
        malformed++;
      } else {
        Instant eventTime = start.plusMillis(i * 1000L + random.nextInt(20_000));
        if (dice < 6) {
          eventTime = eventTime.minus(Duration.ofHours(2)); // far behind the watermark
          late++;
        }
        json =
            order(
                "o-" + i,
                CUSTOMERS[random.nextInt(CUSTOMERS.length)],
                eventTime,
                100 + random.nextInt(20_000));
        valid++;
        previous.add(json);
        if (previous.size() > 50) {
          previous.remove(0);
        }
      }
      values.add(json.getBytes(StandardCharsets.UTF_8));
    }
    return new Batch(values, valid, duplicates, late, malformed);
  }

  static String order(String orderId, String customer, Instant eventTime, long amountCents) {
    return "{\"order_id\":\""
        + orderId
        + "\",\"customer_id\":\""
        + customer
        + "\",\"event_time\":\""
        + eventTime
        + "\",\"amount_cents\":"
        + amountCents
        + ",\"channel\":\"web\"}";
  }

  private static String malformed(Random random, int i) {
    return switch (random.nextInt(3)) {
      case 0 -> "{\"order_id\":\"o-" + i + "\",\"amount_cents\":"; // truncated JSON
      case 1 ->
          "{\"order_id\":\"o-"
              + i
              + "\",\"customer_id\":\"bob\",\"event_time\":\"yesterday\",\"amount_cents\":5}";
      default ->
          "{\"order_id\":\"o-"
              + i
              + "\",\"customer_id\":\"bob\",\"event_time\":\"2026-01-01T00:00:00Z\",\"amount_cents\":\"12x\"}";
    };
  }
}
