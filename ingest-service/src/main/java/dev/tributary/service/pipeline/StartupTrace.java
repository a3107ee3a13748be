package dev.tributary.service.pipeline;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Where a run's start-up goes (issue 27, docs/DESIGN.md "Start-up"): with the system property
 * {@code tributary.startup.trace} (e.g. {@code TRIBUTARY_JAVA_OPTS=-Dtributary.startup.trace}),
 * each step of {@code tributary run}'s start prints one line on stderr, {@code tributary startup
 * +<ms> <step>}, the milliseconds counted from the process's start (the launcher's, which execs the
 * JVM in the same process). Without the property every call is a no-op: nothing is printed and no
 * clock is read.
 */
public final class StartupTrace {
  private static final boolean ON = System.getProperty("tributary.startup.trace") != null;

  /** The process's start, in epoch milliseconds; 0 when tracing is off or it is unknown. */
  private static final long PROCESS_START =
      ON ? ProcessHandle.current().info().startInstant().map(Instant::toEpochMilli).orElse(0L) : 0L;

  private StartupTrace() {}

  /** Whether tracing is on (to skip work that only feeds the trace). */
  public static boolean on() {
    return ON;
  }

  /** Prints that {@code step} is done, with the milliseconds since the process started. */
  public static void mark(String step) {
    if (ON) {
      long now = System.currentTimeMillis();
      System.err.printf(
          "tributary startup +%d ms %s [%s, cpu %d ms]%n",
          now - PROCESS_START, step, Thread.currentThread().getName(), processCpuMs());
    }
  }

  /**
   * The launcher's exec of the JVM: it exports {@code TRIBUTARY_EXEC_AT} (bash's {@code
   * $EPOCHREALTIME}, seconds with microseconds) just before; printed as the first step.
   */
  public static void markLauncher() {
    if (ON) {
      String at = System.getenv("TRIBUTARY_EXEC_AT");
      if (at != null && !at.isBlank()) {
        try {
          long ms = (long) (Double.parseDouble(at.replace(',', '.')) * 1000);
          System.err.printf("tributary startup +%d ms launcher execs java%n", ms - PROCESS_START);
        } catch (NumberFormatException ignored) {
          // not the launcher's
        }
      }
    }
  }

  private static long processCpuMs() {
    return ProcessHandle.current()
        .info()
        .totalCpuDuration()
        .map(d -> TimeUnit.NANOSECONDS.toMillis(d.toNanos()))
        .orElse(-1L);
  }
}
