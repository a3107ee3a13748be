package dev.tributary.config;

import java.util.List;

/**
 * The {@code deduplicate} section: rows with equal key columns are kept once.
 *
 * @param keys the key columns, at least one
 * @param withinWatermark whether duplicates are only removed while the watermark has not passed the
 *     first occurrence's event time (Spark's {@code dropDuplicatesWithinWatermark}); needs a
 *     watermark
 */
public record DeduplicateSpec(List<String> keys, boolean withinWatermark) {

  /** Copies the keys and checks there is at least one. */
  public DeduplicateSpec {
    keys = List.copyOf(keys);
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("deduplicate needs at least one key column");
    }
  }

  /** Returns the declaration as a canonical string, for checkpoint identity. */
  public String canonical() {
    return "keys=" + keys + (withinWatermark ? ", within-watermark" : "");
  }
}
