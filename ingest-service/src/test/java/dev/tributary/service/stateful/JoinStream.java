package dev.tributary.service.stateful;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Generated clicks and purchases for the stream-stream join cases of {@link SparkDifferentialIT}
 * (issue 25, step 6): 12 users clicking about once a minute over two hours on {@link
 * #CLICK_PARTITIONS} partitions; purchases on {@link #PURCHASE_PARTITIONS} partitions at click +
 * U(−5, +40) minutes (so inside and outside the seed's 30-minute bound, and before the click),
 * purchases of two users who never click, clicks of users who never buy, jitter (out of order
 * within and across partitions), late events of both inputs 45–60 minutes behind, a few null {@code
 * user_id}s, and duplicates (same id and time, re-sent). The skewed variant's purchases run 20
 * minutes behind the clicks in event time (its watermark policies min and max differ).
 */
final class JoinStream {
  static final int CLICK_PARTITIONS = 3;
  static final int PURCHASE_PARTITIONS = 2;
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** One click or purchase as sent; {@code amount} is null for clicks. */
  record Event(String id, String user, Instant ts, BigDecimal amount, int partition) {}

  /** Both inputs, each in send order. */
  record Streams(List<Event> clicks, List<Event> purchases) {
    /** The first {@code n} of {@code of} rounds (about equal shares of both inputs). */
    Streams round(int n, int of) {
      return new Streams(
          clicks.subList(clicks.size() * n / of, clicks.size() * (n + 1) / of),
          purchases.subList(purchases.size() * n / of, purchases.size() * (n + 1) / of));
    }
  }

  private JoinStream() {}

  /** The streams of a case, seeded by its name. */
  static Streams generate(String seedName, boolean skewed) {
    Random r = new Random(seedName.hashCode());
    List<Event> clicks = new ArrayList<>();
    List<Event> purchases = new ArrayList<>();
    List<Long> clickOrder = new ArrayList<>();
    List<Long> purchaseOrder = new ArrayList<>();
    int count = 120;
    for (int i = 0; i < count; i++) {
      long minute = i + r.nextInt(9) - 4L; // jitter: out of order
      String user = i % 29 == 7 ? null : "u" + r.nextInt(12);
      long arrival = i;
      if (i % 17 == 9) {
        minute -= 45 + r.nextInt(16); // late
      }
      Event click =
          new Event("c" + i, user, T0.plus(Duration.ofMinutes(minute)), null, i % CLICK_PARTITIONS);
      clicks.add(click);
      clickOrder.add(arrival * 10);
      if (i % 23 == 4) { // a duplicate, re-sent a little later on the same partition
        clicks.add(click);
        clickOrder.add(arrival * 10 + 25);
      }
      if (r.nextInt(5) < 3 && user != null || i % 29 == 7) {
        long at = minute * 60 + (r.nextInt(46) - 5) * 60L + r.nextInt(60);
        long behind = skewed ? 20 * 60 : 0;
        long arrives = (at - behind) / 60 * 10 + r.nextInt(30) - 15;
        if (i % 19 == 11) {
          arrives += 60 * 10; // a late purchase: it arrives an hour after its time
        }
        Event p =
            new Event(
                "p" + i,
                user,
                T0.plusSeconds(at - behind),
                BigDecimal.valueOf(100 + r.nextInt(9900), 2),
                i % PURCHASE_PARTITIONS);
        purchases.add(p);
        purchaseOrder.add(arrives);
        if (i % 31 == 2) { // a duplicate purchase
          purchases.add(p);
          purchaseOrder.add(arrives + 5);
        }
      }
      if (i % 10 == 5) { // a walk-in: a purchase of a user who never clicks
        long at = minute * 60 + r.nextInt(600);
        purchases.add(
            new Event(
                "w" + i,
                "walk-in-" + (i % 2),
                T0.plusSeconds(at - (skewed ? 20 * 60 : 0)),
                BigDecimal.valueOf(500, 2),
                i % PURCHASE_PARTITIONS));
        purchaseOrder.add(at / 60 * 10);
      }
    }
    return new Streams(inOrder(clicks, clickOrder), inOrder(purchases, purchaseOrder));
  }

  /** The events by arrival (ties keep generation order). */
  private static List<Event> inOrder(List<Event> events, List<Long> arrival) {
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      at.add(i);
    }
    at.sort(Comparator.comparing(arrival::get));
    return at.stream().map(events::get).toList();
  }
}
