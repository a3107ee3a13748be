package dev.tributary.config;

import java.util.List;
import java.util.Objects;

/**
 * One {@code join} entry with a {@code stream:} input: a stream-stream join of the main input (the
 * left side, after its transforms and stream-static joins) with a second stream (the right side),
 * with Spark's semantics (docs/DESIGN.md, "Stream-stream joins"; the rules in
 * docs/STREAM_JOINS_SPARK_RULES.md). Accepted by {@code validate}; running arrives with issue 25's
 * next steps.
 *
 * @param stream the second input
 * @param on the key columns, named as in the left input; the right's are {@code prefix + name}
 * @param time the time-range condition between the two sides' event times ({@link
 *     TimeCondition#NONE} when not declared)
 * @param type inner (default), left, right, full or left-semi
 */
public record StreamJoinSpec(
    InputSpec stream, List<String> on, TimeCondition time, StreamJoinType type) {

  /** Copies the key list and checks that it is not empty. */
  public StreamJoinSpec {
    Objects.requireNonNull(stream, "stream");
    on = List.copyOf(on);
    if (on.isEmpty()) {
      throw new IllegalArgumentException("a join needs at least one key column");
    }
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(type, "type");
  }

  /** The right side's key columns, in the order of {@link #on}. */
  public List<String> rightKeys() {
    return on.stream().map(stream::prefixed).toList();
  }
}
