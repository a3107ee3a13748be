package dev.tributary.service.expr;

import dev.tributary.table.types.StructType;

/** A pipeline's transform steps compiled against its parsed schema. Thread-safe. */
public interface CompiledTransforms {

  /** The schema of the rows {@link #apply} returns. */
  StructType outputSchema();

  /**
   * Runs every step on a row aligned with the input schema. Returns a row aligned with {@link
   * #outputSchema()}, or null when a filter dropped it. The input array is not modified (derive
   * steps write into a new array); with no steps the input itself is returned.
   */
  Object[] apply(Object[] row);
}
