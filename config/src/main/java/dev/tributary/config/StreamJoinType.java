package dev.tributary.config;

import java.util.Locale;

/**
 * The type of a stream-stream join ({@code join[].type} of a {@code stream:} entry; default {@link
 * #INNER}): the types Spark supports between two streams (docs/STREAM_JOINS_SPARK_RULES.md, J1).
 * Left is the pipeline's main input, right the {@code stream} input.
 */
public enum StreamJoinType {
  /** Pairs that match on the keys and the time condition. */
  INNER("Inner"),
  /** Inner, plus every left row that matched nothing, with null right columns once evicted. */
  LEFT("LeftOuter"),
  /** Inner, plus every right row that matched nothing, with null left columns once evicted. */
  RIGHT("RightOuter"),
  /** Left and right outer at once. */
  FULL("FullOuter"),
  /** Each left row with at least one match, once, with the left columns only. */
  LEFT_SEMI("LeftSemi");

  private final String sparkName;

  StreamJoinType(String sparkName) {
    this.sparkName = sparkName;
  }

  /** The name as written in files, e.g. {@code left-semi}. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Spark's name of the type ({@code LeftOuter}), as its refusal messages write it. */
  public String sparkName() {
    return sparkName;
  }

  /** Whether unmatched left rows are output (with null right columns). */
  public boolean keepsLeft() {
    return this == LEFT || this == FULL;
  }

  /** Whether unmatched right rows are output (with null left columns). */
  public boolean keepsRight() {
    return this == RIGHT || this == FULL;
  }
}
