package dev.tributary.storage.retry;

import java.time.Duration;

/** Waits between two attempts; tests pass one that only records the waits. */
@FunctionalInterface
interface Sleeper {
  /**
   * Waits on the calling thread: an interrupt ends the wait early and stays set (the next attempt's
   * blocking calls see it and decide), as {@code LockSupport.parkNanos} did at the old retry sites.
   */
  Sleeper THREAD =
      wait -> {
        try {
          Thread.sleep(wait.toMillis(), (int) (wait.toNanos() % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      };

  void sleep(Duration wait);
}
