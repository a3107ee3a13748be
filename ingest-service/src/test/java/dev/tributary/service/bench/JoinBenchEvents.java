package dev.tributary.service.bench;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;

/**
 * The stream-join benchmark's inputs ({@link JoinBench}): clicks and purchases of the seed query,
 * made so that the join's result does not depend on where a micro-batch cuts either stream.
 *
 * <ul>
 *   <li>Click {@code i} happens at {@code i × span / clicks} plus a jitter in {@code [0, JITTER)}
 *       and belongs to a random user of {@link #USERS}; purchase {@code j} at {@code JITTER + j ×
 *       (span − JITTER) / purchases} plus a jitter, and copies the user of a click drawn from those
 *       that happened in the {@link #BOUND} before it: every purchase is 0 to 30 minutes after a
 *       click of its user (it may also match other clicks of that user).
 *   <li>Each input is in event-time order up to the jitter, which is below the watermark {@link
 *       #DELAY}: no row is ever behind its own input's watermark, so none is late under either
 *       policy, whatever the cut.
 *   <li>Record {@code i} of an input goes to partition {@code i mod partitions}, so a limit per
 *       trigger spread evenly over the partitions takes a contiguous run of indices; with the
 *       limits in the inputs' ratio ({@link #purchaseLimit}), batch {@code k} of both inputs covers
 *       the same event-time span, and the joint watermark moves as fast as either input's.
 * </ul>
 *
 * Event times are whole milliseconds, written as ISO-8601 with three decimals and {@code Z}, which
 * both Tributary's and Spark's JSON readers parse to the same instant.
 */
final class JoinBenchEvents {
  /** When the first click happens. */
  static final long START_MS = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

  /** The event-time span of the clicks. */
  static final long SPAN_MS = 4 * 3_600_000L;

  /** How far a purchase may follow its click: the query's {@code INTERVAL 30 MINUTES}. */
  static final long BOUND_MS = 30 * 60_000L;

  /** Both inputs' watermark delay. */
  static final long DELAY_MS = 10 * 60_000L;

  /** How far an event may be later than its place in the input's order: below {@link #DELAY_MS}. */
  static final long JITTER_MS = 2 * 60_000L;

  static final int USERS = 100_000;

  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final int[] clickUser;
  private final long[] clickMs;
  private final int[] purchaseUser;
  private final long[] purchaseMs;

  /** The click each purchase was made to follow (by index). */
  private final int[] purchaseClick;

  private final int[] pages;
  private final int[] amounts;

  private JoinBenchEvents(int clicks, int purchases) {
    clickUser = new int[clicks];
    clickMs = new long[clicks];
    pages = new int[clicks];
    purchaseUser = new int[purchases];
    purchaseMs = new long[purchases];
    purchaseClick = new int[purchases];
    amounts = new int[purchases];
  }

  /** The events of a run, the same for the same arguments. */
  static JoinBenchEvents generate(int clicks, int purchases, long seed) {
    if (clicks < 1 || purchases < 1) {
      throw new IllegalArgumentException(
          "the join benchmark needs at least one click and one purchase, got "
              + clicks
              + " and "
              + purchases);
    }
    JoinBenchEvents e = new JoinBenchEvents(clicks, purchases);
    Random random = new Random(seed);
    for (int i = 0; i < clicks; i++) {
      e.clickMs[i] = START_MS + i * SPAN_MS / clicks + random.nextInt((int) JITTER_MS);
      e.clickUser[i] = random.nextInt(USERS);
      e.pages[i] = random.nextInt(5000);
    }
    for (int j = 0; j < purchases; j++) {
      long p =
          START_MS
              + JITTER_MS
              + j * (SPAN_MS - JITTER_MS) / purchases
              + random.nextInt((int) JITTER_MS);
      // clicks whose earliest time is at least p - BOUND and whose latest (base + jitter) is at
      // most p: any of them happened within the bound before p
      long first = ceilDiv((p - START_MS - BOUND_MS) * clicks, SPAN_MS);
      long last = Math.floorDiv((p - START_MS - JITTER_MS) * clicks, SPAN_MS);
      int lo = (int) Math.max(0, first);
      int hi = (int) Math.min(clicks - 1, last);
      if (lo > hi) {
        throw new IllegalArgumentException(
            "the join benchmark needs at least 10 clicks (one every 28 minutes), got " + clicks);
      }
      int click = lo + random.nextInt(hi - lo + 1);
      e.purchaseMs[j] = p;
      e.purchaseClick[j] = click;
      e.purchaseUser[j] = e.clickUser[click];
      e.amounts[j] = random.nextInt(100_000);
    }
    return e;
  }

  private static long ceilDiv(long x, long y) {
    return -Math.floorDiv(-x, y);
  }

  /**
   * The purchases' limit per trigger for a clicks limit: the inputs' ratio, so that a batch covers
   * the same event-time span of both (at least 1).
   */
  static long purchaseLimit(long clickLimit, int clicks, int purchases) {
    return Math.max(1, Math.round((double) clickLimit * purchases / clicks));
  }

  int clicks() {
    return clickMs.length;
  }

  int purchases() {
    return purchaseMs.length;
  }

  long clickMs(int i) {
    return clickMs[i];
  }

  long purchaseMs(int j) {
    return purchaseMs[j];
  }

  String clickUser(int i) {
    return "u-" + clickUser[i];
  }

  String purchaseUser(int j) {
    return "u-" + purchaseUser[j];
  }

  /** The click purchase {@code j} was made to follow. */
  int purchaseClick(int j) {
    return purchaseClick[j];
  }

  /** Click {@code i} as the JSON value of its record. */
  String clickJson(int i) {
    return "{\"click_id\":\"c-"
        + i
        + "\",\"user_id\":\""
        + clickUser(i)
        + "\",\"event_ts\":\""
        + ISO.format(Instant.ofEpochMilli(clickMs[i]))
        + "\",\"page\":\"/products/"
        + pages[i]
        + "\"}";
  }

  /** Purchase {@code j} as the JSON value of its record. */
  String purchaseJson(int j) {
    return "{\"purchase_id\":\"p-"
        + j
        + "\",\"user_id\":\""
        + purchaseUser(j)
        + "\",\"event_ts\":\""
        + ISO.format(Instant.ofEpochMilli(purchaseMs[j]))
        + "\",\"amount\":"
        + amounts[j]
        + "}";
  }
}
