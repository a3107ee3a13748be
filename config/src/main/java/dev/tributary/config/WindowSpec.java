package dev.tributary.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code aggregate.window} section. {@code { column, size }} is a tumbling window, adding
 * {@code slide} makes it sliding, and {@code { column, session-gap }} is a session window.
 */
public sealed interface WindowSpec {

  /** Returns the timestamp column the window is computed on. */
  String column();

  /** Returns the window as a canonical string, for checkpoint identity. */
  String canonical();

  /**
   * Fixed, non-overlapping windows aligned to the epoch.
   *
   * @param column the timestamp column
   * @param size the window length, positive
   */
  record Tumbling(String column, Duration size) implements WindowSpec {
    /** Checks the size is positive. */
    public Tumbling {
      Objects.requireNonNull(column, "column");
      requirePositive(size, "size");
    }

    @Override
    public String canonical() {
      return "tumbling(" + column + ", " + Durations.format(size) + ")";
    }
  }

  /**
   * Overlapping windows of {@code size} starting every {@code slide}; each event falls in
   * size/slide windows.
   *
   * @param column the timestamp column
   * @param size the window length, positive and a multiple of the slide
   * @param slide the distance between window starts, positive and at most the size
   */
  record Sliding(String column, Duration size, Duration slide) implements WindowSpec {
    /** Checks both durations are positive, slide <= size and size is a multiple of slide. */
    public Sliding {
      Objects.requireNonNull(column, "column");
      requirePositive(size, "size");
      requirePositive(slide, "slide");
      if (slide.compareTo(size) > 0 || size.toNanos() % slide.toNanos() != 0) {
        throw new IllegalArgumentException(
            "window size "
                + Durations.format(size)
                + " must be a multiple of the slide "
                + Durations.format(slide));
      }
    }

    @Override
    public String canonical() {
      return "sliding("
          + column
          + ", "
          + Durations.format(size)
          + ", "
          + Durations.format(slide)
          + ")";
    }
  }

  /**
   * Per-key windows that close after {@code gap} without events.
   *
   * @param column the timestamp column
   * @param gap the inactivity gap, positive
   */
  record Session(String column, Duration gap) implements WindowSpec {
    /** Checks the gap is positive. */
    public Session {
      Objects.requireNonNull(column, "column");
      requirePositive(gap, "gap");
    }

    @Override
    public String canonical() {
      return "session(" + column + ", " + Durations.format(gap) + ")";
    }
  }

  private static void requirePositive(Duration duration, String name) {
    if (Objects.requireNonNull(duration, name).isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("window " + name + " must be positive");
    }
  }
}
