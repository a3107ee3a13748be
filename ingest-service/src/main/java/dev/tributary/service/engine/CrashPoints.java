package dev.tributary.service.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Deliberate process death at a named step of the batch lifecycle, for the exactly-once crash
 * tests only. Enabled by the system property {@code tributary.test.crash-at=<point>:<n>}: the n-th
 * time the engine reaches {@code <point>} (counting from 1 in this process), the JVM halts at once
 * with exit code 137, exactly like {@code kill -9}: no shutdown hooks, no flushing, no cleanup.
 * Without the property every call is a single volatile-free field check.
 */
public final class CrashPoints {
  /** Points in the order a batch reaches them. */
  public static final String AFTER_PLAN = "after-plan";
  public static final String AFTER_OFFSETS_LOG = "after-offsets-log";
  public static final String MID_BATCH = "mid-batch";
  public static final String AFTER_DATA_FILES = "after-data-files";
  public static final String AFTER_QUARANTINE_COMMIT = "after-quarantine-commit";
  public static final String AFTER_SINK_COMMIT = "after-sink-commit";
  public static final String AFTER_STATE_COMMIT = "after-state-commit";
  public static final String AFTER_COMMITS_LOG = "after-commits-log";

  private static final String POINT;
  private static final long AT;
  private static final AtomicLong REACHED = new AtomicLong();

  static {
    String spec = System.getProperty("tributary.test.crash-at");
    if (spec == null || spec.isBlank()) {
      POINT = null;
      AT = -1;
    } else {
      int colon = spec.lastIndexOf(':');
      POINT = colon < 0 ? spec : spec.substring(0, colon);
      AT = colon < 0 ? 1 : Long.parseLong(spec.substring(colon + 1));
    }
  }

  private CrashPoints() {}

  /** Halts the JVM if this is the configured point and occurrence. */
  public static void reached(String point) {
    if (POINT != null && POINT.equals(point) && REACHED.incrementAndGet() == AT) {
      System.err.println("tributary: crash point " + point + ":" + AT + " reached, halting");
      Runtime.getRuntime().halt(137);
    }
  }
}
