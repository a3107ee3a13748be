package dev.tributary.service.testing;

import dev.tributary.service.engine.CrashPoints;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-process crash: the engine's thread dies at the {@code n}-th time it reaches a crash point,
 * by an {@link Error} the engine never catches — what {@code tributary.test.crash-at} does to a
 * child JVM with {@code halt}, in milliseconds. Everything the "process" held in memory is dropped
 * by the test afterwards; what it wrote to the (in-memory) stores stays, as on disk.
 *
 * @param point the crash point's name ({@link CrashPoints})
 * @param n which occurrence, from 1
 */
public record CrashAt(String point, int n) {

  /** What the dying thread throws. */
  public static final class Crashed extends Error {
    private static final long serialVersionUID = 1L;

    Crashed(String point, int n) {
      super("simulated crash at " + point + ":" + n);
    }
  }

  /**
   * Runs {@code body} on this thread, crashing at this point.
   *
   * @return whether the crash happened (false: the body ended before reaching the point n times)
   */
  public boolean runCrashing(Callable<?> body) throws Exception {
    AtomicInteger reached = new AtomicInteger();
    try {
      CrashPoints.onThisThread(
          p -> {
            if (p.equals(point) && reached.incrementAndGet() == n) {
              throw new Crashed(point, n);
            }
          },
          body);
      return false;
    } catch (Crashed e) {
      return true;
    }
  }

  @Override
  public String toString() {
    return point + ":" + n;
  }
}
