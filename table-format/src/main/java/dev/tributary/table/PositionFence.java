package dev.tributary.table;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One source position a fenced commit moves (see {@link DeltaTable#newFencedAppend}): the commit is
 * valid only if, in the snapshot it commits on top of, the table holds {@code expected} for {@code
 * appId} (no {@code txn} of that app id at all when empty); it then records {@code next}. A
 * concurrent commit that records {@code appId} makes it fail with a {@link
 * PositionConflictException}, never retried: another writer took the position over.
 *
 * @param appId the position's {@code txn} app id (for Tributary: {@code
 *     <pipeline>:<topic>:<partition>})
 * @param expected the version the table must hold, or empty for none yet
 * @param next the version the commit records (for Tributary: the next offset to read), {@code >=
 *     expected}
 */
public record PositionFence(String appId, OptionalLong expected, long next) {
  public PositionFence {
    Objects.requireNonNull(appId, "appId");
    Objects.requireNonNull(expected, "expected");
    if (next < 0 || expected.isPresent() && expected.getAsLong() > next) {
      throw new IllegalArgumentException(
          "position " + appId + " cannot move from " + expected + " to " + next);
    }
  }

  /** Whether {@code held}, the table's version of {@link #appId}, is the one this fence expects. */
  public boolean admits(OptionalLong held) {
    return held.equals(expected);
  }
}
