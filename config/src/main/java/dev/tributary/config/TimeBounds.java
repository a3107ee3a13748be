package dev.tributary.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How long each side of a stream-stream join keeps its rows: the per-side state watermark derived
 * from the batch's eviction watermark {@code W_evict}, exactly as Spark derives it
 * (docs/STREAM_JOINS_SPARK_RULES.md, S1r and S2r; Spark's {@code
 * StreamingJoinHelper.getStateValueWatermark}). A row of a side is evicted at the end of a batch
 * when its {@link #evictionColumn} is {@code <=} the side's {@link #stateWatermarkMicros}.
 *
 * <ul>
 *   <li><b>Key case (S1r.1)</b>: a join key is a side's watermark column ({@link #keyTime}): both
 *       sides evict by that key column with {@code W_evict} itself.
 *   <li><b>Value case (S1r.2, S2r)</b>: a side X with a watermark of its own, for each {@link
 *       Bound} whose upper side is X and whose lower column is the other side's watermark column:
 *       {@code ((W_ms × 1000.0 + offset) / 1000.0)} truncated toward zero to milliseconds (Spark
 *       computes in doubles and converts with {@code toLong}), minus 1 ms when the bound is not
 *       strict (the eviction predicate is inclusive); the minimum over those bounds; none without
 *       one.
 * </ul>
 *
 * Seed query ({@code p_ts BETWEEN ts AND ts + INTERVAL 30 MINUTES}, both sides watermarked): left
 * {@code W − 30 min − 1 ms}, right {@code W − 1 ms}.
 *
 * @param bounds the time condition's conjuncts
 * @param leftWatermark the left side's watermark column, if it has one
 * @param rightWatermark the right side's watermark column (prefixed), if it has one
 * @param keyTime the key columns carrying a watermark (left name, right name), if a key does
 */
public record TimeBounds(
    List<Bound> bounds,
    Optional<String> leftWatermark,
    Optional<String> rightWatermark,
    Optional<KeyTime> keyTime) {

  /**
   * The join key that carries a watermark: the first of the keys (left keys first) that is its
   * side's watermark column (Spark's {@code findJoinKeyOrdinalForWatermark}).
   *
   * @param left the key as the left side names it
   * @param right the key as the right side names it ({@code prefix + name})
   */
  public record KeyTime(String left, String right) {
    /** Checks that no part is null. */
    public KeyTime {
      Objects.requireNonNull(left, "left");
      Objects.requireNonNull(right, "right");
    }
  }

  /** Copies the bounds. */
  public TimeBounds {
    bounds = List.copyOf(bounds);
    Objects.requireNonNull(leftWatermark, "leftWatermark");
    Objects.requireNonNull(rightWatermark, "rightWatermark");
    Objects.requireNonNull(keyTime, "keyTime");
  }

  /**
   * The bounds of a declared join.
   *
   * @param join the stream join
   * @param left the main input's watermark (the left side's), if declared
   */
  public static TimeBounds of(StreamJoinSpec join, Optional<WatermarkSpec> left) {
    Optional<String> leftColumn = left.map(WatermarkSpec::column);
    Optional<String> rightColumn = join.stream().watermarkColumn();
    Optional<KeyTime> key = Optional.empty();
    for (String name : join.on()) {
      if (leftColumn.isPresent() && leftColumn.get().equals(name)) {
        key = Optional.of(new KeyTime(name, join.stream().prefixed(name)));
        break;
      }
    }
    if (key.isEmpty()) {
      for (String name : join.on()) {
        if (rightColumn.isPresent() && rightColumn.get().equals(join.stream().prefixed(name))) {
          key = Optional.of(new KeyTime(name, join.stream().prefixed(name)));
          break;
        }
      }
    }
    return new TimeBounds(join.time().bounds(), leftColumn, rightColumn, key);
  }

  /** The side's watermark column, if it has one. */
  public Optional<String> watermark(JoinSide side) {
    return side == JoinSide.LEFT ? leftWatermark : rightWatermark;
  }

  /**
   * Whether rows of the side are ever evicted: a key watermark, or the side has a watermark of its
   * own and a {@link #limiting} bound.
   */
  public boolean evicts(JoinSide side) {
    return keyTime.isPresent() || (watermark(side).isPresent() && !limiting(side).isEmpty());
  }

  /**
   * The column whose value decides a row's eviction: the key column with a key watermark, else the
   * side's watermark column; empty when the side is never evicted.
   */
  public Optional<String> evictionColumn(JoinSide side) {
    if (keyTime.isPresent()) {
      return Optional.of(side == JoinSide.LEFT ? keyTime.get().left() : keyTime.get().right());
    }
    return evicts(side) ? watermark(side) : Optional.empty();
  }

  /**
   * The side's state watermark for a batch: rows whose {@link #evictionColumn} is {@code <=} it are
   * evicted at the end of the batch. Empty when the side is never evicted.
   *
   * @param evictWatermarkMicros the batch's eviction watermark {@code W_evict}, in microseconds (a
   *     whole number of milliseconds, as every watermark)
   * @return the state watermark in microseconds (a whole number of milliseconds)
   */
  public OptionalLong stateWatermarkMicros(JoinSide side, long evictWatermarkMicros) {
    if (keyTime.isPresent()) {
      return OptionalLong.of(evictWatermarkMicros);
    }
    if (!evicts(side)) {
      return OptionalLong.empty();
    }
    long watermarkMs = evictWatermarkMicros / 1000;
    OptionalLong min = OptionalLong.empty();
    for (Bound bound : limiting(side)) {
      long ms = stateWatermarkMs(bound, watermarkMs);
      if (min.isEmpty() || ms < min.getAsLong()) {
        min = OptionalLong.of(ms);
      }
    }
    return min.isEmpty() ? min : OptionalLong.of(min.getAsLong() * 1000);
  }

  /**
   * The bounds that bound the side's time from below by the other side's watermark (S2r): the side
   * is the bound's upper side and the other side's column is that side's watermark column. Spark's
   * acceptance check of outer joins (R2, S4r) asks exactly whether there is one; eviction needs, in
   * addition, a watermark on the side itself ({@link #evicts}). Empty in the key case, which needs
   * none.
   */
  public List<Bound> limiting(JoinSide side) {
    if (keyTime.isPresent()) {
      return List.of();
    }
    Optional<String> other = watermark(side.other());
    if (other.isEmpty()) {
      return List.of();
    }
    return bounds.stream()
        .filter(b -> b.upper() == side && b.lowerColumn().equals(other.get()))
        .toList();
  }

  /**
   * One bound's state watermark in milliseconds, Spark's arithmetic to the letter: the sum in
   * doubles of the watermark in microseconds and the offset, divided by 1000.0, converted with
   * {@code toLong} (truncation toward zero, so a negative value rounds up), minus 1 ms when not
   * strict.
   */
  public static long stateWatermarkMs(Bound bound, long watermarkMs) {
    double micros = watermarkMs * 1000.0 + (double) bound.offsetMicros();
    long ms = (long) (micros / 1000.0);
    return bound.strict() ? ms : ms - 1;
  }

  /**
   * The side's retention as {@code validate} prints it, e.g. {@code left state keeps event_ts >
   * watermark − 30 min − 1 ms}.
   */
  public String describe(JoinSide side) {
    String name = side.keyword() + " state";
    if (keyTime.isPresent()) {
      return name
          + " keeps keys whose "
          + evictionColumn(side).orElseThrow()
          + " > watermark (a join key carries the watermark)";
    }
    List<Bound> limiting = limiting(side);
    if (!evicts(side)) {
      return name + " is never evicted (" + whyNever(side) + ")";
    }
    // Evaluated at an arbitrary whole-second watermark: the minimum bound is the same for any.
    long probeMs = 1_000_000_000_000L;
    Bound min = limiting.get(0);
    for (Bound b : limiting) {
      if (stateWatermarkMs(b, probeMs) < stateWatermarkMs(min, probeMs)) {
        min = b;
      }
    }
    StringBuilder text =
        new StringBuilder(name).append(" keeps ").append(watermark(side).orElseThrow());
    text.append(" > watermark");
    if (min.offsetMicros() != 0) {
      text.append(min.offsetMicros() > 0 ? " + " : " − ")
          .append(Bound.interval(min.offsetMicros()));
      if (min.offsetMicros() % 1000 != 0) {
        text.append(" (truncated to the ms)");
      }
    }
    if (!min.strict()) {
      text.append(" − 1 ms");
    }
    return text.toString();
  }

  private String whyNever(JoinSide side) {
    if (watermark(side).isEmpty()) {
      return "the " + side.keyword() + " input has no watermark";
    }
    if (watermark(side.other()).isEmpty()) {
      return "the " + side.other().keyword() + " input has no watermark to bound it with";
    }
    return "the time condition does not bound "
        + watermark(side).get()
        + " from below by "
        + watermark(side.other()).get();
  }
}
