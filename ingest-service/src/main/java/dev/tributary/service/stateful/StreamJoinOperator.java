package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.service.stateful.JoinState.Side;
import dev.tributary.service.stateful.StreamJoinDefinition.StreamJoinType;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A stream-stream join on rows, with Spark's rules (docs/STREAM_JOINS_SPARK_RULES.md; rule ids in
 * the comments). Per batch N, with the state at version N-1:
 *
 * <ol>
 *   <li>{@link #begin}: the batch's eviction watermark {@code W_evict} and late watermark {@code
 *       W_late} (microseconds; 0 before the first one, as in Spark); each side's state watermark is
 *       derived from {@code W_evict} by its {@link StreamJoinDefinition.Side#stateWatermark}.
 *   <li>{@link #left} for every left input row, then {@link #right} for every right input row, each
 *       in the fixed order the inputs are read in (a left row after a right row is refused: P1).
 *   <li>{@link #end}: eviction, with the outer rows of the evicted unmatched rows (E1, O1).
 *   <li>The caller commits the store as version N once the sink holds the batch's output.
 * </ol>
 *
 * A left row sees the right rows of earlier batches only, a right row every kept left row including
 * this batch's, so each pair is considered once and the output multiset does not depend on the
 * order of rows within an input (P2). A replay of batch N from version N-1 with the same rows and
 * watermarks produces the same output and writes the same changelog.
 *
 * <p>A row whose event time is null (on a side with a time column) is dropped and counted as
 * filtered, as the other stateful operators do (docs/STATEFUL.md): in Spark such a row fails every
 * time condition and is never evicted, so it never reaches the output either.
 */
final class StreamJoinOperator {
  /** The state store's operator id: both sides in one store. */
  static final String OPERATOR_ID = "join-0";

  private final StreamJoinDefinition join;
  private final StreamJoinType type;
  private final int[] leftKeys;
  private final int[] rightKeys;
  private JoinState state;
  private long batchId;
  private long lateMicros;
  private OptionalLong leftStateWatermark = OptionalLong.empty();
  private OptionalLong rightStateWatermark = OptionalLong.empty();
  private int leftOrdinal;
  private int rightOrdinal;
  private boolean readingRight;
  private long leftEvicted;
  private long rightEvicted;
  private long outerRows;
  private long leftLate;
  private long rightLate;
  private long pairs;

  StreamJoinOperator(StreamJoinDefinition join) {
    this.join = join;
    this.type = join.type();
    this.leftKeys = join.left().keyColumns();
    this.rightKeys = join.right().keyColumns();
  }

  /**
   * Starts batch {@code batchId} on {@code store}, which holds the state after the previous batch
   * (opened, committed or aborted there).
   *
   * @param evictMicros {@code W_evict}: the state watermarks derive from it
   * @param lateMicros {@code W_late}: rows of a side with a watermark at or before it are late (L1)
   */
  void begin(StateStore store, long batchId, long evictMicros, long lateMicros) {
    this.state = new JoinState(store, join.left().width(), join.right().width());
    this.batchId = batchId;
    this.lateMicros = lateMicros;
    this.leftStateWatermark = join.left().stateWatermark().apply(evictMicros);
    this.rightStateWatermark = join.right().stateWatermark().apply(evictMicros);
    this.leftOrdinal = 0;
    this.rightOrdinal = 0;
    this.readingRight = false;
    this.leftEvicted = 0;
    this.rightEvicted = 0;
    this.outerRows = 0;
    this.leftLate = 0;
    this.rightLate = 0;
    this.pairs = 0;
  }

  /**
   * A left input row (P1 step 1): joined with the right rows of earlier batches, then kept with
   * whether it joined any (left semi: output once and not kept when it did, P4).
   */
  void left(Object[] row, Emitter out) throws IOException {
    if (readingRight) {
      throw new IllegalStateException(
          "batch " + batchId + ": a left row after the right rows; the left input comes first");
    }
    if (!reachesJoin(Side.LEFT, row)) {
      out.filtered(); // before the watermark and the late filter, as Spark's inferred filter
      return;
    }
    int ordinal = leftOrdinal++;
    long time = 0;
    if (join.left().hasTime()) {
      Object t = row[join.left().timeColumn()];
      if (t == null) {
        out.filtered();
        return;
      }
      time = Times.micros((Instant) t);
      if (join.left().dropsLate() && time <= lateMicros) {
        leftLate++;
        out.late(row, Emitter.Late.join(lateMicros));
        return;
      }
    }
    byte[] key = Codec.key(row, leftKeys);
    boolean matched = false;
    try (JoinState.Lookup rights = state.lookup(Side.RIGHT, key)) {
      for (JoinState.Stored r = rights.next(); r != null; r = rights.next()) {
        if (!join.time().test(time, r.timeMicros())) {
          continue; // P5: only a pair passing the whole condition is a match
        }
        matched = true;
        if (type == StreamJoinType.LEFT_SEMI) {
          break; // one output row whatever the number of matches; right flags play no part
        }
        if (type.keepsUnmatchedRight()) {
          r.markMatched(); // only an outer right side ever reads its flags (O1)
        }
        out.output(joined(row, r.row()));
        pairs++;
      }
    }
    if (type == StreamJoinType.LEFT_SEMI && matched) {
      out.output(row); // P4: emitted once, and not kept, so no later right row emits it again
      pairs++;
      return;
    }
    // P1/P3: kept even when this batch evicts it, so that this batch's right rows see it.
    state.append(Side.LEFT, key, time, batchId, ordinal, matched, row);
  }

  /**
   * A right input row (P1 step 2): joined with the kept left rows, this batch's included, then kept
   * unless this batch evicts it anyway (P3).
   */
  void right(Object[] row, Emitter out) throws IOException {
    readingRight = true;
    if (!reachesJoin(Side.RIGHT, row)) {
      out.filtered();
      return;
    }
    int ordinal = rightOrdinal++;
    long time = 0;
    if (join.right().hasTime()) {
      Object t = row[join.right().timeColumn()];
      if (t == null) {
        out.filtered();
        return;
      }
      time = Times.micros((Instant) t);
      if (join.right().dropsLate() && time <= lateMicros) {
        rightLate++; // L1; counted only: the late-events table holds the main input's rows
        return;
      }
    }
    byte[] key = Codec.key(row, rightKeys);
    boolean semi = type == StreamJoinType.LEFT_SEMI;
    boolean flagsLeft = semi || type.keepsUnmatchedLeft();
    boolean matched = false;
    try (JoinState.Lookup lefts = state.lookup(Side.LEFT, key)) {
      for (JoinState.Stored l = lefts.next(); l != null; l = lefts.next()) {
        if (semi && l.matched()) {
          continue; // P4: a left row is output at most once
        }
        if (!join.time().test(l.timeMicros(), time)) {
          continue;
        }
        matched = true;
        if (flagsLeft) {
          l.markMatched();
        }
        out.output(semi ? l.row() : joined(l.row(), row));
        pairs++;
      }
    }
    boolean evictedNow = rightStateWatermark.isPresent() && time <= rightStateWatermark.getAsLong();
    if (!evictedNow || !matched && type.keepsUnmatchedRight()) {
      // P3: an outer right row that matched nothing is kept although due, so that the eviction
      // at the end of this batch outputs it with nulls.
      state.append(Side.RIGHT, key, time, batchId, ordinal, matched, row);
    }
  }

  /**
   * Ends the batch (E1): evicts each side's rows at or before its state watermark, outputting the
   * unmatched ones of an outer side with nulls for the other side (O1; full outer: left ones
   * first), and writes the state counters. The store is then ready to be committed.
   */
  void end(Emitter out) throws IOException {
    if (leftStateWatermark.isPresent()) {
      int rightWidth = join.right().width();
      leftEvicted =
          state.evict(
              Side.LEFT,
              leftStateWatermark.getAsLong(),
              type.keepsUnmatchedLeft()
                  ? (matched, row) -> {
                    if (!matched) {
                      out.output(joined(row, new Object[rightWidth]));
                      outerRows++;
                    }
                  }
                  : null);
    }
    if (rightStateWatermark.isPresent()) {
      int leftWidth = join.left().width();
      rightEvicted =
          state.evict(
              Side.RIGHT,
              rightStateWatermark.getAsLong(),
              type.keepsUnmatchedRight()
                  ? (matched, row) -> {
                    if (!matched) {
                      out.output(joined(new Object[leftWidth], row));
                      outerRows++;
                    }
                  }
                  : null);
    }
    state.writeCounters();
  }

  /** The left state watermark of the batch (empty: the left side is not evicted). */
  OptionalLong leftStateWatermark() {
    return leftStateWatermark;
  }

  /** The right state watermark of the batch (empty: the right side is not evicted). */
  OptionalLong rightStateWatermark() {
    return rightStateWatermark;
  }

  /**
   * The state size per side (after this batch's changes) and this batch's activity, named as in the
   * batch progress's {@code state} (docs/DESIGN.md, "Metrics, progress and sizing").
   */
  Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("join.left.rows", state.rows(Side.LEFT));
    m.put("join.left.bytes", state.bytes(Side.LEFT));
    m.put("join.right.rows", state.rows(Side.RIGHT));
    m.put("join.right.bytes", state.bytes(Side.RIGHT));
    m.put("join.left.evicted", leftEvicted);
    m.put("join.right.evicted", rightEvicted);
    m.put("join.outerRows", outerRows);
    m.put("join.left.lateRows", leftLate);
    m.put("join.right.lateRows", rightLate);
    m.put("join.pairs", pairs);
    return m;
  }

  /**
   * Whether a row of {@code side} takes part in the join (J5, as Spark 4 does it, settled by the
   * differential tests): the equality lets Spark infer {@code key IS NOT NULL} on every side but an
   * outer join's preserved one, and pushes that filter below the watermark node, so on such a side
   * a row with a null key neither reaches the join nor feeds its input's watermark. On a preserved
   * side it reaches the join with its key as it is, and Spark's state compares keys as bytes: a
   * full outer join pairs a null key with a null key (the left outer join's left null keys find no
   * right row, as the right ones were filtered).
   */
  boolean reachesJoin(Side side, Object[] row) {
    if (side == Side.LEFT) {
      return type.keepsUnmatchedLeft() || !hasNull(row, leftKeys);
    }
    return type.keepsUnmatchedRight() || !hasNull(row, rightKeys);
  }

  private static boolean hasNull(Object[] row, int[] columns) {
    for (int c : columns) {
      if (row[c] == null) {
        return true;
      }
    }
    return false;
  }

  private static Object[] joined(Object[] left, Object[] right) {
    Object[] out = new Object[left.length + right.length];
    System.arraycopy(left, 0, out, 0, left.length);
    System.arraycopy(right, 0, out, left.length, right.length);
    return out;
  }
}
