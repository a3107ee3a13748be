package dev.tributary.service.demo;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The attribution demo's two streams: clicks (one every ~3 seconds, 600 users, so a user clicks
 * about every 30 minutes) and purchases, most of them by a user 0-28 minutes after one of their
 * clicks, a few by guests who never clicked, plus a few late records (two hours behind) and
 * malformed ones in both topics. Late records come only after the first three batches of the demo
 * pipeline ({@link #CLICKS_PER_BATCH}, {@link #PURCHASES_PER_BATCH}): a batch judges lateness by
 * the watermark its previous batch evicted with, which the batch before that computed (Spark's
 * rule), so a record of batch 0 or 1 is never late. Each stream is in event-time order up to a
 * jitter of a minute, far below the pipeline's 10-minute watermark delay: then no purchase arrives
 * after the click it belongs to was evicted and the joined rows do not depend on how the batches
 * cut the streams (only which unmatched clicks are already written does, see {@link
 * Streams#expectedRows}). Deterministic for a given seed.
 */
public final class ClickEvents {
  /** The pipeline's time bound: a purchase is attributed to the clicks of 30 minutes before it. */
  public static final Duration WINDOW = Duration.ofMinutes(30);

  /**
   * A well-formed click.
   *
   * @param late whether it was produced two hours behind the others (dropped as late)
   */
  public record Click(
      String clickId, String userId, String campaign, Instant eventTs, boolean late) {}

  /**
   * A well-formed purchase.
   *
   * @param late whether it was produced two hours behind the others (dropped as late)
   */
  public record Purchase(
      String orderId, String userId, BigDecimal amount, Instant eventTs, boolean late) {}

  /**
   * What was generated.
   *
   * @param clickValues the clicks topic's records in produce order (round-robin over 3 partitions:
   *     record i goes to partition i % 3 at offset i / 3)
   * @param purchaseValues the purchases topic's records, likewise
   * @param clicks each click record's parsed form, null for a malformed one (same indexes)
   * @param purchases each purchase record's parsed form, null for a malformed one
   */
  public record Streams(
      List<byte[]> clickValues,
      List<byte[]> purchaseValues,
      List<Click> clicks,
      List<Purchase> purchases) {

    /**
     * "6,000 clicks (30 late, 31 malformed), 2,089 purchases (10 late, 11 malformed, 104 by
     * guests)".
     */
    public String describe() {
      return String.format(
          "%,d clicks (%,d late, %,d malformed), %,d purchases (%,d late, %,d malformed, %,d by"
              + " guests who never clicked)",
          clicks.size(),
          clicks.stream().filter(c -> c != null && c.late()).count(),
          clicks.stream().filter(c -> c == null).count(),
          purchases.size(),
          purchases.stream().filter(p -> p != null && p.late()).count(),
          purchases.stream().filter(p -> p == null).count(),
          purchases.stream().filter(p -> p != null && p.userId().startsWith("guest")).count());
    }

    /** The clicks that are neither malformed nor late: what reaches the join. */
    public List<Click> joinedClicks() {
      return clicks.stream().filter(c -> c != null && !c.late()).toList();
    }

    /** The purchases that are neither malformed nor late. */
    public List<Purchase> joinedPurchases() {
      return purchases.stream().filter(p -> p != null && !p.late()).toList();
    }

    /**
     * The left outer join's rows as "click_id order_id" ("click_id -" for a click without a
     * purchase), sorted: every (click, purchase) pair of a user with the purchase in the click's 30
     * minutes, and the clicks without any, of which only those at or before {@code writtenUpTo}
     * (the left state watermark of the last batch: its W_evict − 30 min − 1 ms) have been written;
     * later ones wait in state for a purchase.
     */
    public List<String> expectedRows(Instant writtenUpTo) {
      Map<String, List<Purchase>> byUser = new TreeMap<>();
      joinedPurchases()
          .forEach(p -> byUser.computeIfAbsent(p.userId(), u -> new ArrayList<>()).add(p));
      List<String> rows = new ArrayList<>();
      for (Click c : joinedClicks()) {
        boolean matched = false;
        for (Purchase p : byUser.getOrDefault(c.userId(), List.of())) {
          if (!p.eventTs().isBefore(c.eventTs())
              && !p.eventTs().isAfter(c.eventTs().plus(WINDOW))) {
            rows.add(c.clickId() + " " + p.orderId());
            matched = true;
          }
        }
        if (!matched && !c.eventTs().isAfter(writtenUpTo)) {
          rows.add(c.clickId() + " -");
        }
      }
      rows.sort(Comparator.naturalOrder());
      return rows;
    }
  }

  /** The demo pipeline's {@code max-offsets-per-trigger} of the clicks (attribution-demo.yaml). */
  public static final int CLICKS_PER_BATCH = 500;

  /** The demo pipeline's {@code max-offsets-per-trigger} of the purchases. */
  public static final int PURCHASES_PER_BATCH = 170;

  private static final int USERS = 600;
  private static final String[] CAMPAIGNS = {"spring-sale", "newsletter", "search", "social"};

  private ClickEvents() {}

  /**
   * @param clicks the number of click records (malformed ones included); about a third as many
   *     purchases come with them
   * @param start the first click's event time
   */
  public static Streams generate(int clicks, Instant start, long seed) {
    Random random = new Random(seed);
    List<Click> clickRows = new ArrayList<>(clicks);
    List<Purchase> planned = new ArrayList<>();
    for (int i = 0; i < clicks; i++) {
      if (random.nextInt(200) == 0) {
        clickRows.add(null);
        continue;
      }
      Instant at = start.plusMillis(i * 3_000L + random.nextInt(60_000));
      boolean late = i >= 3 * CLICKS_PER_BATCH && random.nextInt(200) == 0;
      Click click =
          new Click(
              "c-" + i,
              String.format("u%03d", random.nextInt(USERS)),
              CAMPAIGNS[random.nextInt(CAMPAIGNS.length)],
              late ? at.minus(Duration.ofHours(2)) : at,
              late);
      clickRows.add(click);
      if (!late && random.nextInt(10) < 3) {
        planned.add(
            purchase(
                planned.size(), click.userId(), at.plusSeconds(random.nextInt(28 * 60)), random));
      }
      if (random.nextInt(100) < 2) {
        planned.add(
            purchase(planned.size(), "guest-" + i, at.plusSeconds(random.nextInt(60)), random));
      }
    }
    planned.sort(Comparator.comparing(Purchase::eventTs));
    // Late and malformed purchases are inserted in produce order, after the sort: a late one is
    // two hours behind the purchase produced before it.
    List<Purchase> purchaseRows = new ArrayList<>();
    for (Purchase p : planned) {
      purchaseRows.add(p);
      int n = purchaseRows.size();
      if (random.nextInt(200) == 0) {
        purchaseRows.add(null);
      } else if (n >= 3 * PURCHASES_PER_BATCH && random.nextInt(100) == 0) {
        purchaseRows.add(
            new Purchase(
                "o-late-" + n,
                p.userId(),
                p.amount(),
                p.eventTs().minus(Duration.ofHours(2)),
                true));
      }
    }
    return new Streams(
        clickRows.stream().map(c -> bytes(c == null ? malformed(random) : json(c))).toList(),
        purchaseRows.stream().map(p -> bytes(p == null ? malformed(random) : json(p))).toList(),
        clickRows,
        purchaseRows);
  }

  private static Purchase purchase(int n, String user, Instant at, Random random) {
    return new Purchase(
        "o-" + n, user, BigDecimal.valueOf(500 + random.nextInt(20_000), 2), at, false);
  }

  private static String json(Click c) {
    return "{\"click_id\":\""
        + c.clickId()
        + "\",\"user_id\":\""
        + c.userId()
        + "\",\"campaign\":\""
        + c.campaign()
        + "\",\"event_ts\":\""
        + c.eventTs()
        + "\"}";
  }

  private static String json(Purchase p) {
    return "{\"order_id\":\""
        + p.orderId()
        + "\",\"user_id\":\""
        + p.userId()
        + "\",\"amount\":"
        + p.amount().toPlainString()
        + ",\"event_ts\":\""
        + p.eventTs()
        + "\"}";
  }

  private static String malformed(Random random) {
    return random.nextBoolean()
        ? "{\"user_id\":\"u001\",\"event_ts\":" // truncated JSON
        : "{\"user_id\":\"u001\",\"event_ts\":\"yesterday\"}";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
