package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.SparkCase.spark;
import static dev.tributary.service.stateful.SparkCase.watermark;

import dev.tributary.service.stateful.EventStream.Event;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The queries {@link SparkDifferentialIT} runs on both engines (issue 11's list). Feature tags:
 * {@code wm} is Spark's watermark and lateness rules (global watermark, per-operator late rows with
 * the previous batch's watermark, windows judged by their end, complete mode ignoring the
 * watermark); {@code running} is aggregations without a window and the measures first, last and
 * approx_count_distinct.
 */
final class SparkCases {
  private SparkCases() {}

  private static final List<String> ALL_COLUMNS =
      List.of(
          "event_id",
          "user_id",
          "event_type",
          "event_ts",
          "amount",
          "quantity",
          "_kafka_partition",
          "_kafka_offset");
  private static final Object WATERMARK = watermark("event_ts", "10 minutes");

  static final List<SparkCase> ALL =
      List.of(
          // no watermark: already Spark's semantics
          SparkCase.of(
              "tumbling-complete",
              """
          aggregate:
            window: { column: event_ts, size: 5 minutes }
            group-by: [event_type]
            measures:
              events: count()
              quantities: count(quantity)
              amount: sum(amount)
              quantity: sum(quantity)
              min_amount: min(amount)
              max_amount: max(amount)
              last_ts: max(event_ts)
              avg_quantity: avg(quantity)
          output-mode: complete
          """,
              spark(
                  "complete",
                  """
              SELECT window.start AS window_start, window.end AS window_end, event_type, count(*) AS events,
                count(quantity) AS quantities, sum(amount) AS amount, sum(quantity) AS quantity,
                min(amount) AS min_amount, max(amount) AS max_amount, max(event_ts) AS last_ts,
                avg(quantity) AS avg_quantity
              FROM events GROUP BY window(event_ts, '5 minutes'), event_type"""),
              List.of(
                  "window_start",
                  "window_end",
                  "event_type",
                  "events",
                  "quantities",
                  "amount",
                  "quantity",
                  "min_amount",
                  "max_amount",
                  "last_ts",
                  "avg_quantity")),
          SparkCase.of(
              "dedup-append",
              """
          deduplicate: { keys: [event_id] }
          output-mode: append
          """,
              spark("append", "SELECT * FROM events", "dropDuplicates", List.of("event_id")),
              ALL_COLUMNS),

          // the seed query, in two available-now runs on one checkpoint
          SparkCase.of(
                  "seed-query",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          deduplicate: { keys: [event_id, event_ts] }
          aggregate:
            window: { column: event_ts, size: 5 minutes }
            group-by: [event_type]
            measures:
              events: count()
              amount: sum(amount)
          output-mode: append
          """,
                  spark(
                      "append",
                      """
              SELECT window.start AS window_start, window.end AS window_end, event_type, count(*) AS events,
                sum(amount) AS amount
              FROM events GROUP BY window(event_ts, '5 minutes'), event_type""",
                      "watermark",
                      WATERMARK,
                      "dropDuplicates",
                      List.of("event_id", "event_ts")),
                  List.of("window_start", "window_end", "event_type", "events", "amount"))
              .inRounds(2)
              .requires("wm"),
          SparkCase.of(
                  "tumbling-append",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          aggregate:
            window: { column: event_ts, size: 10 minutes }
            group-by: [user_id]
            measures:
              events: count()
              quantities: count(quantity)
              quantity: sum(quantity)
              min_amount: min(amount)
              max_amount: max(amount)
              last_ts: max(event_ts)
              avg_quantity: avg(quantity)
          output-mode: append
          """,
                  spark(
                      "append",
                      """
              SELECT window.start AS window_start, window.end AS window_end, user_id, count(*) AS events,
                count(quantity) AS quantities, sum(quantity) AS quantity, min(amount) AS min_amount,
                max(amount) AS max_amount, max(event_ts) AS last_ts, avg(quantity) AS avg_quantity
              FROM events GROUP BY window(event_ts, '10 minutes'), user_id""",
                      "watermark",
                      WATERMARK),
                  List.of(
                      "window_start",
                      "window_end",
                      "user_id",
                      "events",
                      "quantities",
                      "quantity",
                      "min_amount",
                      "max_amount",
                      "last_ts",
                      "avg_quantity"))
              .requires("wm"),
          SparkCase.of(
                  "sliding-update",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          aggregate:
            window: { column: event_ts, size: 10 minutes, slide: 5 minutes }
            group-by: [event_type]
            measures:
              events: count()
              min_quantity: min(quantity)
              max_quantity: max(quantity)
              avg_quantity: avg(quantity)
          output-mode: update
          """,
                  spark(
                      "update",
                      """
              SELECT window.start AS window_start, window.end AS window_end, event_type, count(*) AS events,
                min(quantity) AS min_quantity, max(quantity) AS max_quantity, avg(quantity) AS avg_quantity
              FROM events GROUP BY window(event_ts, '10 minutes', '5 minutes'), event_type""",
                      "watermark",
                      WATERMARK,
                      "mergeKeys",
                      List.of("window_start", "window_end", "event_type")),
                  List.of(
                      "window_start",
                      "window_end",
                      "event_type",
                      "events",
                      "min_quantity",
                      "max_quantity",
                      "avg_quantity"))
              .requires("wm"),
          SparkCase.of(
                  "session-append",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          aggregate:
            window: { column: event_ts, session-gap: 5 minutes }
            group-by: [user_id]
            measures:
              events: count()
              amount: sum(amount)
              first_ts: min(event_ts)
              last_ts: max(event_ts)
          output-mode: append
          """,
                  spark(
                      "append",
                      """
              SELECT session_window.start AS window_start, session_window.end AS window_end, user_id,
                count(*) AS events, sum(amount) AS amount, min(event_ts) AS first_ts, max(event_ts) AS last_ts
              FROM events GROUP BY session_window(event_ts, '5 minutes'), user_id""",
                      "watermark",
                      WATERMARK),
                  List.of(
                      "window_start",
                      "window_end",
                      "user_id",
                      "events",
                      "amount",
                      "first_ts",
                      "last_ts"))
              .requires("wm"),
          SparkCase.of(
                  "dedup-within-watermark",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          deduplicate: { keys: [event_id], within-watermark: true }
          output-mode: append
          """,
                  spark(
                      "append",
                      "SELECT * FROM events",
                      "watermark",
                      WATERMARK,
                      "dropDuplicatesWithinWatermark",
                      List.of("event_id")),
                  ALL_COLUMNS)
              .requires("wm"),
          SparkCase.of(
                  "tumbling-update",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          deduplicate: { keys: [event_id, event_ts] }
          aggregate:
            window: { column: event_ts, size: 5 minutes }
            group-by: [event_type]
            measures:
              events: count()
              amount: sum(amount)
          output-mode: update
          """,
                  spark(
                      "update",
                      """
              SELECT window.start AS window_start, window.end AS window_end, event_type, count(*) AS events,
                sum(amount) AS amount
              FROM events GROUP BY window(event_ts, '5 minutes'), event_type""",
                      "watermark",
                      WATERMARK,
                      "dropDuplicates",
                      List.of("event_id", "event_ts"),
                      "mergeKeys",
                      List.of("window_start", "window_end", "event_type")),
                  List.of("window_start", "window_end", "event_type", "events", "amount"))
              .requires("wm"),
          SparkCase.of(
                  "tumbling-complete-watermark",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          aggregate:
            window: { column: event_ts, size: 1 hour }
            group-by: [event_type]
            measures:
              events: count()
              amount: sum(amount)
              last_ts: max(event_ts)
          output-mode: complete
          """,
                  spark(
                      "complete",
                      """
              SELECT window.start AS window_start, window.end AS window_end, event_type, count(*) AS events,
                sum(amount) AS amount, max(event_ts) AS last_ts
              FROM events GROUP BY window(event_ts, '1 hour'), event_type""",
                      "watermark",
                      WATERMARK),
                  List.of(
                      "window_start", "window_end", "event_type", "events", "amount", "last_ts"))
              .requires("wm"),

          // running aggregations: no window, state per group-by key
          SparkCase.of(
                  "running-update",
                  """
          watermark: { column: event_ts, delay: 10 minutes }
          deduplicate: { keys: [event_id, event_ts] }
          aggregate:
            group-by: [user_id]
            measures:
              events: count()
              amount: sum(amount)
              first_event: first(event_id)
              last_amount: last(amount)
              types: approx_count_distinct(event_type)
              ids: approx_count_distinct(event_id)
          output-mode: update
          """,
                  spark(
                      "update",
                      """
              SELECT user_id, count(*) AS events, sum(amount) AS amount, first(event_id) AS first_event,
                last(amount) AS last_amount, approx_count_distinct(event_type) AS types,
                approx_count_distinct(event_id) AS ids
              FROM events GROUP BY user_id""",
                      "watermark",
                      WATERMARK,
                      "dropDuplicates",
                      List.of("event_id", "event_ts"),
                      "mergeKeys",
                      List.of("user_id"),
                      "show",
                      true),
                  List.of(
                      "user_id", "events", "amount", "first_event", "last_amount", "types", "ids"))
              .approx("types", "ids")
              .requires("running", "wm"),
          SparkCase.of(
                  "running-complete",
                  """
          aggregate:
            group-by: [event_type]
            measures:
              events: count()
              quantity: sum(quantity)
              first_user: first(user_id)
              last_quantity: last(quantity)
              first_ts: first(event_ts)
              users: approx_count_distinct(user_id)
          output-mode: complete
          """,
                  spark(
                      "complete",
                      """
              SELECT event_type, count(*) AS events, sum(quantity) AS quantity, first(user_id) AS first_user,
                last(quantity) AS last_quantity, first(event_ts) AS first_ts,
                approx_count_distinct(user_id) AS users
              FROM events GROUP BY event_type""",
                      "show",
                      true),
                  List.of(
                      "event_type",
                      "events",
                      "quantity",
                      "first_user",
                      "last_quantity",
                      "first_ts",
                      "users"))
              .inRounds(2)
              .approx("users")
              .requires("running"),
          numericPicture());

  /**
   * The stream-stream join cases (issue 25, step 6; docs/DESIGN.md "Differential tests against
   * Spark 4 + Delta 4"). Every generated stream has null user_ids on both inputs, duplicates, late
   * and out-of-order events, purchases outside the bound and before their click, clicks without
   * purchases and purchases without clicks, so the seed cases are also the null-key (J5) cases.
   * {@code full-null-keys-match}: Spark's full outer join matches null keys with each other (no
   * IsNotNull is inferred for it, and its state compares key rows by bytes); so does ours since.
   * Tags: {@code join-aggregate} is an aggregation after the join (issue 25 step 8, another
   * branch); {@code spark-restart-watermarks} is never landed: Spark forgets the per-input
   * watermarks at a restart (W3), we persist them (W-persist), so that case shows the difference.
   */
  static final List<JoinCase> JOINS =
      List.of(
          JoinCase.seed("seed-inner", "inner").inRounds(2),
          JoinCase.seed("seed-left-outer", "left"),
          JoinCase.seed("seed-right-outer", "right"),
          // Spark matches a null key with a null key in a full outer join (J5); we never do yet
          JoinCase.seed("seed-full-outer", "full").requires("full-null-keys-match"),
          JoinCase.seed("seed-left-semi", "left-semi"),
          JoinCase.seed("seed-inner-max", "inner").skewed().multiple("max"),
          JoinCase.seed("seed-left-outer-min-skewed", "left").skewed().multiple("min"),
          JoinCase.seed("key-watermark", "left").on(List.of("user_id", "event_ts"), ""),
          JoinCase.seed("inner-no-watermark", "inner").watermarks(false, false),
          twoRoundOneSide());

  /**
   * Inner join, then a 5-minute window count in append, on the left's time column and on the
   * right's prefixed one (tag {@code join-aggregate}, issue 25 step 8, built on another branch).
   * Not yet run against Spark: they join {@link #JOINS} when the tag is landed (or given with
   * {@code -Dtributary.spark.features=join-aggregate}).
   */
  static final List<JoinCase> JOIN_AGGREGATES =
      List.of(
          JoinCase.seed("join-then-window", "inner")
              .then(
                  """
                  aggregate:
                    window: { column: event_ts, size: 5 minutes }
                    measures:
                      events: count()
                  output-mode: append
                  """,
                  "SELECT window.start AS window_start, window.end AS window_end, count(*) AS events"
                      + " FROM joined GROUP BY window(event_ts, '5 minutes')",
                  List.of("window_start", "window_end", "events"))
              .requires("join-aggregate"),
          JoinCase.seed("join-then-window-on-p", "inner")
              .then(
                  """
                  aggregate:
                    window: { column: p_event_ts, size: 5 minutes }
                    measures:
                      events: count()
                  output-mode: append
                  """,
                  "SELECT window.start AS window_start, window.end AS window_end, count(*) AS events"
                      + " FROM joined GROUP BY window(p_event_ts, '5 minutes')",
                  List.of("window_start", "window_end", "events"))
              .requires("join-aggregate"));

  /**
   * Inner seed join, then a deduplication (tag {@code join-dedup}), in the forms Spark accepts
   * after a join: one input with a watermark, so the joined rows have one event-time column (rule
   * D2); keys with that column (late rows dropped, keys evicted), and within the watermark (keys
   * expire at their first time + the delay). The compared columns are the click's (or the
   * purchase's): equal in every joined row of a key, unlike which of its rows comes first.
   */
  static final List<JoinCase> JOIN_DEDUPS =
      List.of(
          JoinCase.seed("join-then-dedup-on-p", "inner")
              .watermarks(false, true)
              .thenDeduplicate(
                  "deduplicate: { keys: [p_event_id, p_event_ts] }",
                  "dropDuplicates",
                  List.of("p_event_id", "p_event_ts"),
                  List.of("p_event_id", "p_user_id", "p_event_ts", "p_amount"))
              .requires("join-aggregate", "join-dedup"),
          JoinCase.seed("join-then-dedup-within-watermark", "inner")
              .watermarks(true, false)
              .thenDeduplicate(
                  "deduplicate: { keys: [event_id], within-watermark: true }",
                  "dropDuplicatesWithinWatermark",
                  List.of("event_id"),
                  List.of("event_id", "user_id", "event_ts"))
              .requires("join-aggregate", "join-dedup"));

  /**
   * A left outer seed join in two rounds, the second with purchases only: after the restart Spark's
   * clicks watermark is none (0) again, so with {@code min} its global watermark cannot move; ours
   * restores the clicks' value and moves on with the purchases (W3 vs W-persist).
   */
  private static JoinCase twoRoundOneSide() {
    JoinCase c = JoinCase.seed("two-round-one-side", "left");
    JoinStream.Streams all = c.rounds().get(0);
    JoinStream.Streams first = all.round(0, 2);
    JoinStream.Streams second = all.round(1, 2);
    return c.withRounds(
            List.of(
                new JoinStream.Streams(all.clicks(), first.purchases()),
                new JoinStream.Streams(List.of(), second.purchases())))
        .requires("spark-restart-watermarks");
  }

  /**
   * The seed document's numeric picture (delay 10 minutes, 5-minute tumbling count, append), in
   * three available-now runs, three offsets per batch, so one event of each partition per batch:
   *
   * <ol>
   *   <li>events from 12:01 to 12:14 and one at 12:20 (in the last batch): the watermark becomes
   *       12:10 and the no-data batch writes 12:00-12:05 (3) and 12:05-12:10 (3);
   *   <li>12:07, 12:03, 12:11, then 12:21, 12:26, 12:16: by Spark's rule the window 12:05-12:10
   *       closed at watermark 12:10 (end <= watermark), so 12:07 is dropped like 12:03; the
   *       watermark becomes 12:16 and 12:10-12:15 (12:13, 12:14, 12:11: 3) is written;
   *   <li>12:40-12:42 move the watermark to 12:32: 12:15-12:20 (1), 12:20-12:25 (2), 12:25-12:30
   *       (1).
   * </ol>
   *
   * Spark's table is checked against these rows.
   */
  private static SparkCase numericPicture() {
    List<List<Event>> rounds =
        List.of(
            List.of(
                at("p1", 0, "12:01"),
                at("p2", 1, "12:02"),
                at("p3", 2, "12:04"),
                at("p4", 0, "12:06"),
                at("p5", 1, "12:08"),
                at("p6", 2, "12:13"),
                at("p7", 0, "12:09"),
                at("p8", 1, "12:20"),
                at("p9", 2, "12:14")),
            List.of(
                at("p10", 0, "12:07"),
                at("p11", 1, "12:03"),
                at("p12", 2, "12:11"),
                at("p13", 0, "12:21"),
                at("p14", 1, "12:26"),
                at("p15", 2, "12:16")),
            List.of(at("p16", 0, "12:40"), at("p17", 1, "12:41"), at("p18", 2, "12:42")));
    List<List<Object>> expected = new ArrayList<>();
    String[][] windows = {
      {"12:00", "3"}, {"12:05", "3"}, {"12:10", "3"}, {"12:15", "1"}, {"12:20", "2"}, {"12:25", "1"}
    };
    for (String[] w : windows) {
      Instant start = noon(w[0]);
      expected.add(List.of(start, start.plusSeconds(300), Long.parseLong(w[1])));
    }
    return SparkCase.of(
            "numeric-picture",
            """
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          measures:
            events: count()
        output-mode: append
        """,
            spark(
                "append",
                """
            SELECT window.start AS window_start, window.end AS window_end, count(*) AS events
            FROM events GROUP BY window(event_ts, '5 minutes')""",
                "watermark",
                WATERMARK,
                "show",
                true),
            List.of("window_start", "window_end", "events"))
        .events(rounds, 3)
        .expectSpark(expected)
        .requires("wm");
  }

  private static Event at(String id, int partition, String time) {
    return new Event(id, "u0", "click", noon(time), BigDecimal.ONE.setScale(2), 1, -1, partition);
  }

  private static Instant noon(String time) {
    return Instant.parse("2026-01-01T" + time + ":00Z");
  }
}
