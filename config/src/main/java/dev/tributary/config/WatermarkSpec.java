package dev.tributary.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code watermark} section: the event-time watermark is the largest event time seen minus the
 * delay, computed at the end of a batch and applied to the next.
 *
 * @param column the timestamp column holding the event time
 * @param delay how late an event may arrive and still count; zero or more
 * @param policy how the source partitions' event times make the watermark ({@code policy}; default
 *     {@link Policy#GLOBAL}, Spark's rule)
 * @param idleTimeout {@code idle-timeout}: after how long without new data an input no longer holds
 *     back a watermark that is the minimum over several inputs (the repartition partitions of a
 *     stateful group-mode pipeline); empty (the default, as in Spark): an idle input holds it back
 *     until it has data again. See docs/PIPELINE_REFERENCE.md for the exact rule.
 * @param multiple {@code multiple}: how the global watermark is chosen from the two inputs' of a
 *     stream-stream join (default {@link Multiple#MIN}, Spark's {@code multipleWatermarkPolicy});
 *     refused without a stream join
 */
public record WatermarkSpec(
    String column,
    Duration delay,
    Policy policy,
    Optional<Duration> idleTimeout,
    Multiple multiple) {

  /** How the watermark follows the partitions of the source. */
  public enum Policy {
    /** The max event time over all partitions minus the delay (Spark's rule for one source). */
    GLOBAL,
    /**
     * The min over the partitions with records in a batch of their max event time, minus the delay:
     * the watermark follows the slowest partition (uneven backfills).
     */
    PER_PARTITION;

    /** The name as written in pipeline files, e.g. {@code per-partition}. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * How the global watermark follows several inputs, each with its own watermark (Spark's {@code
   * spark.sql.streaming.multipleWatermarkPolicy}; docs/STREAM_JOINS_SPARK_RULES.md, W2). An input
   * that has had no data yet counts as 0.
   */
  public enum Multiple {
    /** The minimum of the inputs' watermarks: the slowest input holds the watermark back. */
    MIN,
    /** The maximum: the fastest input drives eviction and late rows for both. */
    MAX;

    /** The name as written in pipeline files, e.g. {@code min}. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks the delay is not negative and the idle timeout, if any, positive. */
  public WatermarkSpec {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(multiple, "multiple");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (idleTimeout.isPresent() && (idleTimeout.get().isZero() || idleTimeout.get().isNegative())) {
      throw new IllegalArgumentException("a watermark idle-timeout must be greater than zero");
    }
    if (Objects.requireNonNull(delay, "delay").isNegative()) {
      throw new IllegalArgumentException("a watermark delay cannot be negative");
    }
  }

  /** A watermark with the default {@link Multiple#MIN} choice over several inputs. */
  public WatermarkSpec(
      String column, Duration delay, Policy policy, Optional<Duration> idleTimeout) {
    this(column, delay, policy, idleTimeout, Multiple.MIN);
  }

  /** A watermark without an idle timeout. */
  public WatermarkSpec(String column, Duration delay, Policy policy) {
    this(column, delay, policy, Optional.empty());
  }

  /** A watermark with the default {@link Policy#GLOBAL} policy. */
  public WatermarkSpec(String column, Duration delay) {
    this(column, delay, Policy.GLOBAL);
  }
}
