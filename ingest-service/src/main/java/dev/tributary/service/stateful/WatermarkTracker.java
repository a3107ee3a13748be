package dev.tributary.service.stateful;

import java.util.Arrays;

/**
 * The event-time watermark of one pipeline, batch by batch (Spark's {@code WatermarkTracker} for
 * one source). Every row that reaches the stateful operators, late or not, is {@linkplain #observe
 * observed} with its event time truncated to milliseconds (Spark keeps the watermark in
 * milliseconds); at the end of the batch {@link #nextMicros()} is the watermark the next batch
 * evicts with: {@code max(current, candidate)}, so it never goes back, where the candidate is
 *
 * <ul>
 *   <li>{@code GLOBAL}: the max over all observed rows minus the delay (none if no row);
 *   <li>{@code PER_PARTITION}: the min over partitions of each partition's max minus the delay,
 *       counting only rows after the batch's late watermark (a straggler is not progress). A
 *       partition without such a row does not count when it is caught up (idle, or its records were
 *       all filtered, quarantined or late), but holds the watermark where it is when the batch left
 *       it backlogged: its next records may be behind the others'.
 * </ul>
 *
 * The watermark starts at 0 (the epoch), as in Spark. Values are microseconds, multiples of 1,000.
 */
final class WatermarkTracker {
  private final boolean perPartition;
  private final long delayMs;
  private long currentMicros;
  private long lateMicros;
  private long batchMaxMs;
  // PER_PARTITION, by the caller's dense partition index:
  private long[] partitionMaxMs = new long[0];
  private boolean[] read = new boolean[0];
  private boolean[] backlogged = new boolean[0];

  WatermarkTracker(boolean perPartition, long delayMicros) {
    this.perPartition = perPartition;
    this.delayMs = delayMicros / 1000;
  }

  /**
   * Starts a batch that evicts with {@code currentMicros} and judges late rows with {@code
   * lateMicros}.
   */
  void begin(long currentMicros, long lateMicros) {
    this.currentMicros = currentMicros;
    this.lateMicros = lateMicros;
    this.batchMaxMs = Long.MIN_VALUE;
    Arrays.fill(partitionMaxMs, Long.MIN_VALUE);
    Arrays.fill(read, false);
    Arrays.fill(backlogged, false);
  }

  /** Marks a partition the batch leaves behind (its range ends before the latest offset). */
  void backlogged(int partition) {
    ensure(partition);
    backlogged[partition] = true;
  }

  /** A record of {@code partition} was read, whether or not its row reaches the operators. */
  void read(int partition) {
    if (perPartition) {
      ensure(partition);
      read[partition] = true;
    }
  }

  /** A row with event time {@code micros} reached the operators. */
  void observe(int partition, long micros) {
    long ms = micros / 1000; // Spark: micros / 1000 on a long, truncating toward zero
    if (!perPartition) {
      if (ms > batchMaxMs) {
        batchMaxMs = ms;
      }
      return;
    }
    ensure(partition);
    read[partition] = true;
    if (micros > lateMicros && ms > partitionMaxMs[partition]) {
      partitionMaxMs[partition] = ms;
    }
  }

  /** The watermark the next batch evicts with (microseconds). */
  long nextMicros() {
    long candidateMs;
    if (!perPartition) {
      if (batchMaxMs == Long.MIN_VALUE) {
        return currentMicros;
      }
      candidateMs = batchMaxMs;
    } else {
      candidateMs = Long.MAX_VALUE;
      for (int p = 0; p < partitionMaxMs.length; p++) {
        if (partitionMaxMs[p] != Long.MIN_VALUE) {
          candidateMs = Math.min(candidateMs, partitionMaxMs[p]);
        } else if (read[p] && backlogged[p]) {
          return currentMicros;
        }
      }
      if (candidateMs == Long.MAX_VALUE) {
        return currentMicros;
      }
    }
    return Math.max(currentMicros, (candidateMs - delayMs) * 1000);
  }

  private void ensure(int partition) {
    if (partition < partitionMaxMs.length) {
      return;
    }
    int old = partitionMaxMs.length;
    int size = Math.max(partition + 1, old * 2);
    partitionMaxMs = Arrays.copyOf(partitionMaxMs, size);
    Arrays.fill(partitionMaxMs, old, size, Long.MIN_VALUE);
    read = Arrays.copyOf(read, size);
    backlogged = Arrays.copyOf(backlogged, size);
  }
}
