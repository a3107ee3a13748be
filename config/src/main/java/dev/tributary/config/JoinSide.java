package dev.tributary.config;

import java.util.Locale;

/**
 * A side of a stream-stream join: left is the pipeline's main input, right the {@code
 * join[].stream} input.
 */
public enum JoinSide {
  /** The main input (after its transforms and stream-static joins). */
  LEFT,
  /** The second input, its columns named {@code prefix + column}. */
  RIGHT;

  /** The other side. */
  public JoinSide other() {
    return this == LEFT ? RIGHT : LEFT;
  }

  /** The name as messages write it: {@code left} or {@code right}. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }
}
