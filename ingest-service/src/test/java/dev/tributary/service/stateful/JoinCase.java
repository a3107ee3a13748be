package dev.tributary.service.stateful;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One stream-stream join query of {@link SparkDifferentialIT} (issue 25, step 6), as a Tributary
 * pipeline and as Spark: clicks (the main input, left) joined with purchases (the second input,
 * right, columns prefixed {@code p_}).
 *
 * @param name the case's name (topics, tables, checkpoints; the generator's seed)
 * @param type inner, left, right, full or left-semi (our keywords; the judge maps them to Spark's)
 * @param on the key columns, left names
 * @param time the time condition (the same text is valid in both engines), empty for none
 * @param leftWatermark whether the clicks have a watermark (event_ts, 10 minutes)
 * @param rightWatermark whether the purchases have one (p_event_ts, 10 minutes)
 * @param multiple {@code watermark.multiple} / Spark's multipleWatermarkPolicy, empty: default
 * @param after our pipeline after the join (e.g. an aggregate), empty for none
 * @param sql Spark's query over the view {@code joined}, empty for the join itself
 * @param sparkOptions the judge's options applied to the joined rows before {@code sql} (e.g.
 *     {@code dropDuplicates} or {@code dropDuplicatesWithinWatermark} with their columns), empty
 *     for none
 * @param columns the compared output columns, in Spark's order, by name in ours
 * @param rounds the events produced before each available-now run
 * @param requires engine features the case needs (see {@link SparkDifferentialIT#LANDED})
 */
record JoinCase(
    String name,
    String type,
    List<String> on,
    String time,
    boolean leftWatermark,
    boolean rightWatermark,
    String multiple,
    String after,
    String sql,
    Map<String, Object> sparkOptions,
    List<String> columns,
    List<JoinStream.Streams> rounds,
    Set<String> requires) {
  /** The seed's condition: a purchase within 30 minutes after its click. */
  static final String SEED_TIME = "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES";

  static final List<String> LEFT =
      List.of("event_id", "user_id", "event_ts", "_kafka_partition", "_kafka_offset");
  static final List<String> RIGHT = List.of("p_event_id", "p_user_id", "p_event_ts", "p_amount");

  /** Per-trigger offsets of each input (clicks, purchases): 4-5 data batches per round. */
  static final int CLICKS_PER_BATCH = 40;

  static final int PURCHASES_PER_BATCH = 24;

  /** A seed join (both watermarked, the seed's condition) of {@code type} over its own streams. */
  static JoinCase seed(String name, String type) {
    List<String> columns = new ArrayList<>(LEFT);
    if (!type.equals("left-semi")) {
      columns.addAll(RIGHT);
    }
    return new JoinCase(
        name,
        type,
        List.of("user_id"),
        SEED_TIME,
        true,
        true,
        "",
        "",
        "",
        Map.of(),
        columns,
        List.of(JoinStream.generate(name, false)),
        Set.of());
  }

  JoinCase inRounds(int n) {
    JoinStream.Streams all = rounds.get(0);
    List<JoinStream.Streams> out = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      out.add(all.round(r, n));
    }
    return withRounds(out);
  }

  JoinCase withRounds(List<JoinStream.Streams> newRounds) {
    return new JoinCase(
        name,
        type,
        on,
        time,
        leftWatermark,
        rightWatermark,
        multiple,
        after,
        sql,
        sparkOptions,
        columns,
        newRounds,
        requires);
  }

  JoinCase skewed() {
    return withRounds(List.of(JoinStream.generate(name, true)));
  }

  JoinCase multiple(String policy) {
    return new JoinCase(
        name,
        type,
        on,
        time,
        leftWatermark,
        rightWatermark,
        policy,
        after,
        sql,
        sparkOptions,
        columns,
        rounds,
        requires);
  }

  JoinCase on(List<String> keys, String condition) {
    return new JoinCase(
        name,
        type,
        keys,
        condition,
        leftWatermark,
        rightWatermark,
        multiple,
        after,
        sql,
        sparkOptions,
        columns,
        rounds,
        requires);
  }

  JoinCase watermarks(boolean left, boolean right) {
    return new JoinCase(
        name,
        type,
        on,
        time,
        left,
        right,
        multiple,
        after,
        sql,
        sparkOptions,
        columns,
        rounds,
        requires);
  }

  /** Then an aggregation: ours as YAML, Spark's as SQL over {@code joined}, and its columns. */
  JoinCase then(String ours, String spark, List<String> outputColumns) {
    return new JoinCase(
        name,
        type,
        on,
        time,
        leftWatermark,
        rightWatermark,
        multiple,
        ours,
        spark,
        sparkOptions,
        outputColumns,
        rounds,
        requires);
  }

  /**
   * Then a deduplication: ours as YAML, Spark's as the judge's option on the joined rows ({@code
   * dropDuplicates} or {@code dropDuplicatesWithinWatermark} with its columns), and the compared
   * columns (those equal in every joined row of a key: which of a key's rows comes first is not a
   * contract of either engine).
   */
  JoinCase thenDeduplicate(
      String ours, String sparkOption, List<String> keys, List<String> compared) {
    return new JoinCase(
        name,
        type,
        on,
        time,
        leftWatermark,
        rightWatermark,
        multiple,
        ours,
        "",
        Map.of(sparkOption, keys),
        compared,
        rounds,
        requires);
  }

  JoinCase requires(String... features) {
    return new JoinCase(
        name,
        type,
        on,
        time,
        leftWatermark,
        rightWatermark,
        multiple,
        after,
        sql,
        sparkOptions,
        columns,
        rounds,
        Set.of(features));
  }

  /** Spark's join type name for {@code Dataset.join}. */
  String sparkType() {
    return switch (type) {
      case "inner" -> "inner";
      case "left" -> "left_outer";
      case "right" -> "right_outer";
      case "full" -> "full_outer";
      case "left-semi" -> "left_semi";
      default -> throw new IllegalArgumentException(type);
    };
  }
}
