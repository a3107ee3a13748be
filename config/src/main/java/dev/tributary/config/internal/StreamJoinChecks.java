package dev.tributary.config.internal;

import dev.tributary.config.Assignment;
import dev.tributary.config.Bound;
import dev.tributary.config.ColumnSpec;
import dev.tributary.config.ColumnType;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.InputSpec;
import dev.tributary.config.JoinSide;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.StreamJoinType;
import dev.tributary.config.TimeBounds;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.WatermarkSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The checks of a stream-stream join ({@code join[k].stream}; docs/DESIGN.md, "Stream-stream
 * joins", "What may follow the join, and refusals in validate"): the columns it names exist on
 * their side with the right types, Spark's refusals (R1, R2, D2 with Spark's sentences) and ours
 * (an outer side without a watermark of its own), and the limits of the first version (group
 * assignment, the continuous trigger and backfill schedules; {@code multiple} without a stream
 * join).
 */
final class StreamJoinChecks {

  private final Problems problems;
  private final Draft draft;

  StreamJoinChecks(Problems problems, Draft draft) {
    this.problems = problems;
    this.draft = draft;
  }

  /**
   * Runs the checks.
   *
   * @param left the main input's columns after its stream-static joins (type null where unknown
   *     before start), or null when they are unknown as a whole (a Delta source, a join adding
   *     every dimension column, a broken part)
   */
  void check(Map<String, ColumnType> left) {
    if (draft.streamJoins() == null) {
      return;
    }
    if (draft.streamJoins().isEmpty()) {
      if (problems.declared("watermark.multiple")) {
        problems.atKey("watermark.multiple", StreamJoinMessages.multipleWithoutStreamJoin());
      }
      return;
    }
    StreamJoinSpec join = draft.streamJoins().get(0);
    String path = draft.streamJoinPath(0);
    Map<String, ColumnType> right = rightColumns(join.stream());
    checkInputWatermark(join.stream(), path, right);
    if (draft.watermark() != null
        && left != null
        && !left.containsKey(draft.watermark().column())
        && right != null
        && right.containsKey(draft.watermark().column())) {
      problems.atValue(
          "watermark.column",
          StreamJoinMessages.mainWatermarkOnRight(path, draft.watermark().column()));
    }
    checkPrefix(join.stream(), path, left, right);
    checkKeys(join, path, left, right);
    checkTime(join, path, left, right);
    checkOutputMode(path);
    TimeBounds bounds = TimeBounds.of(join, Optional.ofNullable(draft.watermark()));
    checkOuter(join, path, bounds);
    checkDeduplicate(path, bounds);
    checkLimits(path);
  }

  /** The second input's columns, prefixed, with their types; null for a Delta table. */
  private static Map<String, ColumnType> rightColumns(InputSpec input) {
    if (input.format().isEmpty()) {
      return null;
    }
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    for (ColumnSpec column : input.format().get().columns()) {
      columns.put(input.prefixed(column.name()), column.type());
    }
    return columns;
  }

  private void checkInputWatermark(InputSpec input, String path, Map<String, ColumnType> right) {
    Optional<WatermarkSpec> watermark = input.watermark();
    if (watermark.isEmpty() || right == null) {
      return;
    }
    String at = path + ".stream.watermark.column";
    String column = input.prefixed(watermark.get().column());
    FormatSpec format = input.format().orElseThrow();
    if (!right.containsKey(column)) {
      problems.atValue(
          at,
          StreamJoinMessages.unknownInputColumn(
              path,
              watermark.get().column(),
              format.columns().stream().map(c -> c.name()).toList()));
    } else if (!right.get(column).isTimestamp()) {
      problems.atValue(
          at,
          StreamJoinMessages.inputWatermarkNotTimestamp(
              path, watermark.get().column(), right.get(column).canonical()));
    }
  }

  private void checkPrefix(
      InputSpec input, String path, Map<String, ColumnType> left, Map<String, ColumnType> right) {
    if (left == null || right == null) {
      return;
    }
    for (String column : right.keySet()) {
      if (left.containsKey(column)) {
        problems.atValue(
            path + ".stream.prefix",
            StreamJoinMessages.prefixClash(
                path, column, column.substring(input.prefix().length())));
        return;
      }
    }
  }

  /** J4: each key is a column of both sides, of the same type. */
  private void checkKeys(
      StreamJoinSpec join,
      String path,
      Map<String, ColumnType> left,
      Map<String, ColumnType> right) {
    for (int i = 0; i < join.on().size(); i++) {
      String key = join.on().get(i);
      String rightKey = join.stream().prefixed(key);
      String at = path + ".on[" + i + "]";
      if (left != null && !left.containsKey(key)) {
        problems.atValue(at, StreamJoinMessages.unknownLeftKey(path, key, left.keySet()));
      } else if (right != null && !right.containsKey(rightKey)) {
        problems.atValue(
            at,
            StreamJoinMessages.unknownRightKey(
                path,
                key,
                rightKey,
                join.stream().format().orElseThrow().columns().stream()
                    .map(c -> c.name())
                    .toList()));
      } else if (left != null && right != null) {
        ColumnType l = left.get(key);
        ColumnType r = right.get(rightKey);
        if (l != null && r != null && !l.equals(r)) {
          problems.atValue(
              at, StreamJoinMessages.keyTypes(path, key, l.canonical(), r.canonical()));
        }
      }
    }
  }

  /**
   * The time condition compares timestamp columns; a side with a watermark is compared by its
   * watermark column (ours, stricter than Spark, which would just find no bound).
   */
  private void checkTime(
      StreamJoinSpec join,
      String path,
      Map<String, ColumnType> left,
      Map<String, ColumnType> right) {
    for (Bound bound : join.time().bounds()) {
      checkTimeColumn(path, bound.lower(), bound.lowerColumn(), join, left, right);
      checkTimeColumn(path, bound.upper(), bound.upperColumn(), join, left, right);
    }
  }

  private void checkTimeColumn(
      String path,
      JoinSide side,
      String column,
      StreamJoinSpec join,
      Map<String, ColumnType> left,
      Map<String, ColumnType> right) {
    String at = path + ".time";
    if (problems.brokenAt(at)) {
      return; // one report per condition
    }
    Map<String, ColumnType> columns = side == JoinSide.LEFT ? left : right;
    ColumnType type = columns == null ? null : columns.get(column);
    if (type != null && !type.isTimestamp()) {
      problems.atValue(at, StreamJoinMessages.timeNotTimestamp(path, column, type.canonical()));
      return;
    }
    Optional<String> watermark =
        side == JoinSide.LEFT
            ? Optional.ofNullable(draft.watermark()).map(WatermarkSpec::column)
            : join.stream().watermarkColumn();
    if (watermark.isPresent() && !watermark.get().equals(column)) {
      problems.atValue(
          at, StreamJoinMessages.timeNotWatermark(path, side.keyword(), column, watermark.get()));
    }
  }

  /** R1: append only. */
  private void checkOutputMode(String path) {
    OutputMode mode = draft.outputMode();
    if (mode != null && mode != OutputMode.APPEND && !problems.brokenAt("output-mode")) {
      problems.atValue("output-mode", StreamJoinMessages.outputMode(path, mode.keyword()));
    }
  }

  /**
   * R2 (Spark): a side whose unmatched rows are output needs a key watermark or a bound of its time
   * from below by the other side's watermark; full outer either. Then ours: the outer side has a
   * watermark of its own (else Spark never evicts, so never outputs, its unmatched rows).
   */
  private void checkOuter(StreamJoinSpec join, String path, TimeBounds bounds) {
    StreamJoinType type = join.type();
    if (type == StreamJoinType.INNER || problems.brokenAt(path + ".time")) {
      return;
    }
    boolean key = bounds.keyTime().isPresent();
    boolean leftBounded = key || !bounds.limiting(JoinSide.LEFT).isEmpty();
    boolean rightBounded = key || !bounds.limiting(JoinSide.RIGHT).isEmpty();
    String leftTime =
        Optional.ofNullable(draft.watermark())
            .map(WatermarkSpec::column)
            .orElse(timeColumn(join, JoinSide.LEFT).orElse("event_time"));
    String rightTime =
        join.stream()
            .watermarkColumn()
            .orElse(timeColumn(join, JoinSide.RIGHT).orElse(join.stream().prefixed("event_time")));
    String at = path + ".type";
    boolean refused =
        switch (type) {
          case LEFT, LEFT_SEMI -> !leftBounded;
          case RIGHT -> !rightBounded;
          case FULL -> !leftBounded && !rightBounded;
          default -> false;
        };
    if (refused) {
      problems.atValue(
          at, StreamJoinMessages.outerWithoutBound(path, type, fix(type, leftTime, rightTime)));
      return;
    }
    if (type.keepsLeft() && draft.watermark() == null && !problems.declared("watermark")) {
      problems.atValue(at, StreamJoinMessages.outerSideWithoutWatermark(path, type, "left"));
    }
    if (type.keepsRight() && join.stream().watermark().isEmpty()) {
      problems.atValue(at, StreamJoinMessages.outerSideWithoutWatermark(path, type, "right"));
    }
  }

  /** A column of the side the time condition names, for a message's example. */
  private static Optional<String> timeColumn(StreamJoinSpec join, JoinSide side) {
    return join.time().bounds().stream()
        .map(b -> b.lower() == side ? b.lowerColumn() : b.upperColumn())
        .findFirst();
  }

  private static String fix(StreamJoinType type, String leftTime, String rightTime) {
    String left =
        "declare a watermark on the right input and a time condition that bounds "
            + leftTime
            + " from below by "
            + rightTime
            + " (e.g. "
            + rightTime
            + " <= "
            + leftTime
            + " + INTERVAL 30 MINUTES)";
    String right =
        "declare a watermark on the main input and a time condition that bounds "
            + rightTime
            + " from below by "
            + leftTime
            + " (e.g. "
            + rightTime
            + " >= "
            + leftTime
            + ")";
    return switch (type) {
          case RIGHT -> right;
          case FULL -> left + ", or " + right;
          default -> left;
        }
        + ", or put the watermark column in on";
  }

  /** D2: deduplicate after a join of two watermarked inputs sees two event-time columns. */
  private void checkDeduplicate(String path, TimeBounds bounds) {
    if (draft.deduplicate() != null
        && bounds.leftWatermark().isPresent()
        && bounds.rightWatermark().isPresent()) {
      problems.atKey("deduplicate", StreamJoinMessages.deduplicateAfterJoin(path));
    }
  }

  /** The first version's limits (issue 25). */
  private void checkLimits(String path) {
    if (draft.source() instanceof KafkaSourceSpec kafka && kafka.assignment() == Assignment.GROUP) {
      problems.atValue("source.kafka.assignment", StreamJoinMessages.groupAssignment(path));
    }
    if (draft.trigger() instanceof TriggerSpec.Continuous) {
      problems.atKey("trigger.continuous", StreamJoinMessages.continuous(path));
    }
    if (draft.backfill() != null) {
      problems.atKey("backfill", StreamJoinMessages.backfill(path));
    }
  }

  /**
   * The watermark columns after the join (D2): a window aggregation in append mode is on one of
   * them.
   */
  static List<String> eventTimeColumns(Draft draft) {
    StreamJoinSpec join = draft.streamJoins().get(0);
    List<String> columns = new ArrayList<>();
    if (draft.watermark() != null) {
      columns.add(draft.watermark().column());
    }
    join.stream().watermarkColumn().ifPresent(columns::add);
    return columns;
  }
}
