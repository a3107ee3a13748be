package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} on stream-stream joins (issue 25, step 1): the seed's clicks/purchases join is
 * valid and its plan prints how long each side keeps its rows; each refusal of the design (Spark's
 * R1, R2, R4, R6, J1, D2 with Spark's sentences; ours; the first version's limits) exits 1 with a
 * message naming the file and {@code join[0]}; {@code run}, {@code backfill} and {@code
 * replay-quarantine} refuse the join by the pipeline's name.
 */
class StreamJoinValidateTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  /** The seed query: clicks joined with purchases within 30 minutes. */
  static final String SEED =
      """
      pipeline: attribution
      source: { kafka: { bootstrap-servers: localhost:9092, topics: [clicks] } }
      format: { json: { schema: { user_id: string, page: string, event_ts: timestamp } } }
      join:
        - stream:
            source: { kafka: { topics: [purchases] } }
            format: { json: { schema: { user_id: string, order_id: string, event_ts: timestamp } } }
            watermark: { column: event_ts, delay: 10 minutes }
            prefix: p_
          on: [user_id]
          time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
          type: inner
      watermark: { column: event_ts, delay: 10 minutes }
      sink: { delta: { path: /tmp/tables/attribution } }
      checkpoint: /tmp/checkpoints/attribution
      """;

  @Test
  void aDeltaTableAsTheSecondInputIsRunWithItsColumnsCheckedAtStart() throws Exception {
    String yaml =
        SEED.replace(
                "source: { kafka: { topics: [purchases] } }",
                "source: { delta: { path: /tmp/tables/purchases } }")
            .replace(
                "\n      format: { json: { schema: { user_id: string, order_id: string, event_ts:"
                    + " timestamp } } }",
                "");
    assertThat(yaml).contains("delta: { path: /tmp/tables/purchases }").doesNotContain("order_id");
    assertThat(validate(yaml)).as(cli.err()).isZero();
    assertThat(cli.out())
        .contains(
            "  run:         run and serve join the two inputs in each batch (a Delta table's"
                + " columns are read and checked at start); backfill and replay-quarantine refuse"
                + " this pipeline (first version)\n")
        .doesNotContain("not built yet");
  }

  private int validate(String yaml) throws Exception {
    return cli.validate(dir.resolve("attribution.yaml"), yaml);
  }

  /** Validates {@code yaml}, expects the refusal and returns what was printed on stderr. */
  private String refused(String yaml) throws Exception {
    assertThat(validate(yaml)).as(cli.out() + cli.err()).isEqualTo(1);
    return cli.err();
  }

  private String file() {
    return dir.resolve("attribution.yaml").toString();
  }

  @Test
  void theSeedJoinIsValidAndItsPlanShowsEachSidesRetention() throws Exception {
    assertThat(validate(SEED)).as(cli.err()).isZero();

    assertThat(cli.out())
        .contains(
            "  join[0]:     inner stream-stream join with kafka localhost:9092 topics=[purchases] (json, 3"
                + " columns as p_<column>, watermark event_ts - 10 minutes) on [user_id] ="
                + " [p_user_id], time p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30"
                + " MINUTES (event_ts <= p_event_ts AND p_event_ts - 30 min <= event_ts)\n")
        .contains("  state:       left state keeps event_ts > watermark − 30 min − 1 ms\n")
        .contains("  state:       right state keeps p_event_ts > watermark − 1 ms\n")
        .contains(
            "  watermark:   event_ts - 10 minutes (global: the max event time over all partitions);"
                + " with the second input's p_event_ts - 10 minutes, the global watermark is the"
                + " min of the two (multiple: min; an input without data yet counts as 0)\n")
        .contains(
            "  run:         run and serve join the two inputs in each batch; backfill and"
                + " replay-quarantine refuse this pipeline (first version)\n")
        .contains(
            "_kafka_timestamp timestamp, p_user_id string, p_order_id string, p_event_ts"
                + " timestamp\n")
        .doesNotContain("warning:");
  }

  @Test
  void anInnerJoinWithoutBoundIsAcceptedWithAWarning() throws Exception {
    String unbounded =
        SEED.replace(
                "      watermark: { column: event_ts, delay: 10 minutes }\n      prefix",
                "      prefix")
            .replace(
                "    time: \"p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES\"\n",
                "");
    assertThat(validate(unbounded)).as(cli.err()).isZero();

    assertThat(cli.out())
        .contains(
            "  state:       left state is never evicted (the right input has no watermark to bound"
                + " it with)\n")
        .contains(
            "  state:       right state is never evicted (the right input has no watermark)\n")
        .contains(
            "  warning:     state of join[0] is never evicted on the left and right sides: it grows"
                + " with every row of both inputs\n");
  }

  @Test
  void updateAndCompleteOutputModesAreRefusedWithSparksSentence() throws Exception {
    assertThat(refused(SEED + "output-mode: update\n"))
        .contains(
            file()
                + ":16:14: output-mode: Join between two streaming DataFrames/Datasets is not"
                + " supported in Update output mode, only in Append output mode (Spark, rule R1;"
                + " join[0] is a stream-stream join); remove output-mode or set it to append");
  }

  @Test
  void aLeftOuterJoinWithoutALowerBoundOnTheLeftIsRefused() throws Exception {
    // p_event_ts >= event_ts bounds the right side only
    String leftOuter =
        SEED.replace("type: inner", "type: left")
            .replace(
                "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES",
                "p_event_ts >= event_ts");

    assertThat(refused(leftOuter))
        .contains(
            file()
                + ":12:11: join[0].type: Stream-stream LeftOuter join between two streaming"
                + " DataFrame/Datasets is not supported without a watermark in the join keys, or a"
                + " watermark on the nullable side and an appropriate range condition (Spark, rule"
                + " R2; join[0] is type left): declare a watermark on the right input and a time"
                + " condition that bounds event_ts from below by p_event_ts (e.g. p_event_ts <="
                + " event_ts + INTERVAL 30 MINUTES), or put the watermark column in on");
    // the same with left-semi
    assertThat(refused(leftOuter.replace("type: left", "type: left-semi")))
        .contains("join[0].type: Stream-stream LeftSemi join between two streaming");
    // the seed's condition bounds both sides: left, right and full outer are accepted
    for (String type : new String[] {"left", "right", "full", "left-semi"}) {
      assertThat(validate(SEED.replace("type: inner", "type: " + type)))
          .as(type + ": " + cli.err())
          .isZero();
    }
  }

  @Test
  void aRightOuterJoinWithoutALowerBoundOnTheRightIsRefusedAndFullOuterNeedsEither()
      throws Exception {
    // p_event_ts <= event_ts + 30 min bounds the left side only
    String upperOnly =
        SEED.replace(
            "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES",
            "p_event_ts <= event_ts + INTERVAL 30 MINUTES");

    assertThat(refused(upperOnly.replace("type: inner", "type: right")))
        .contains(
            file()
                + ":12:11: join[0].type: Stream-stream RightOuter join between two streaming"
                + " DataFrame/Datasets is not supported without a watermark in the join keys, or a"
                + " watermark on the nullable side and an appropriate range condition (Spark, rule"
                + " R2; join[0] is type right): declare a watermark on the main input and a time"
                + " condition that bounds p_event_ts from below by event_ts (e.g. p_event_ts >="
                + " event_ts), or put the watermark column in on");
    assertThat(validate(upperOnly.replace("type: inner", "type: full"))).as(cli.err()).isZero();
    String noCondition =
        SEED.replace(
            "    time: \"p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES\"\n", "");
    assertThat(refused(noCondition.replace("type: inner", "type: full")))
        .contains("join[0].type: Stream-stream FullOuter join between two streaming");
  }

  @Test
  void aWatermarkInTheJoinKeysSatisfiesAnOuterJoin() throws Exception {
    String keyed =
        SEED.replace("on: [user_id]", "on: [user_id, event_ts]")
            .replace(
                "    time: \"p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES\"\n",
                "")
            .replace("type: inner", "type: left");

    assertThat(validate(keyed)).as(cli.err()).isZero();
    assertThat(cli.out())
        .contains(
            "  state:       left state keeps keys whose event_ts > watermark (a join key carries"
                + " the watermark)\n")
        .contains(
            "  state:       right state keeps keys whose p_event_ts > watermark (a join key"
                + " carries the watermark)\n");
  }

  @Test
  void anOuterSideWithoutAWatermarkOfItsOwnIsRefused() throws Exception {
    // Spark accepts this (the right's watermark bounds the left) but never outputs the null rows
    String noLeftWatermark =
        SEED.replace("type: inner", "type: left")
            .replace("watermark: { column: event_ts, delay: 10 minutes }\nsink", "sink");

    assertThat(refused(noLeftWatermark))
        .contains(
            file()
                + ":12:11: join[0].type: join[0] is a left join, but the left input has no"
                + " watermark: its unmatched rows would never be evicted, so never output with nulls"
                + " (Spark accepts this and never emits them; ours, stricter): declare watermark");
  }

  @Test
  void aLeftAntiJoinIsRefused() throws Exception {
    assertThat(refused(SEED.replace("type: inner", "type: left-anti")))
        .contains(
            file()
                + ":12:11: join[0].type: join[0]: LeftAnti joins with a streaming DataFrame/Dataset"
                + " on the right are not supported (Spark, rule J1); use inner, left, right, full or"
                + " left-semi");
  }

  @Test
  void anUnknownMultipleWatermarkPolicyIsRefused() throws Exception {
    assertThat(
            refused(
                SEED.replace(
                    "delay: 10 minutes }\nsink", "delay: 10 minutes, multiple: latest }\nsink")))
        .contains(
            file()
                + ":13:61: watermark.multiple: Could not recognize watermark policy 'latest':"
                + " valid values are 'min' and 'max'");
    assertThat(
            validate(
                SEED.replace(
                    "delay: 10 minutes }\nsink", "delay: 10 minutes, multiple: max }\nsink")))
        .as(cli.err())
        .isZero();
    assertThat(cli.out()).contains("the global watermark is the max of the two (multiple: max;");
  }

  @Test
  void aRunningAggregationAfterTheJoinIsRefusedInAppend() throws Exception {
    assertThat(refused(SEED + "aggregate: { group-by: [user_id], measures: { n: count() } }\n"))
        .contains(
            file()
                + ":16:12: aggregate: Append output mode not supported when there are streaming"
                + " aggregations on streaming DataFrames/DataSets without watermark (Spark, rule"
                + " R4; join[0] allows append only)");
  }

  @Test
  void aWindowAfterTheJoinIsOnEitherSidesWatermarkColumn() throws Exception {
    String window =
        SEED
            + "aggregate:\n"
            + "  window: { column: p_event_ts, size: 5 minutes }\n"
            + "  group-by: [page]\n"
            + "  measures: { n: count() }\n";
    assertThat(validate(window)).as(cli.err()).isZero();
    assertThat(cli.out()).contains("  output:      window_start, window_end, page, n");
    assertThat(validate(window.replace("column: p_event_ts", "column: event_ts")))
        .as(cli.err())
        .isZero();
    assertThat(
            refused(
                SEED.replace(
                            "event_ts: timestamp } } }\nwatermark",
                            "event_ts: timestamp, at: timestamp } } }\nwatermark")
                        .replace(
                            "page: string, event_ts", "page: string, seen: timestamp, event_ts")
                    + "aggregate:\n"
                    + "  window: { column: seen, size: 5 minutes }\n"
                    + "  measures: { n: count() }\n"))
        .contains(
            "aggregate.window.column: the window is on 'seen' but after the stream-stream join"
                + " join[0] the event-time columns are event_ts and p_event_ts; in append mode a"
                + " window must be on one of them");
  }

  @Test
  void deduplicateAfterAJoinOfTwoWatermarkedInputsIsRefused() throws Exception {
    assertThat(refused(SEED + "deduplicate: { keys: [user_id, p_order_id] }\n"))
        .contains(
            file()
                + ":16:1: deduplicate: More than one event time columns are available. Please"
                + " ensure there is at most one event time column per stream. (Spark, rule D2:"
                + " after join[0], a join of two watermarked inputs, both event-time columns carry"
                + " the watermark)");
  }

  @Test
  void theKeysAndTheTimeConditionAreCheckedOnBothSides() throws Exception {
    assertThat(refused(SEED.replace("on: [user_id]", "on: [user_id, page]")))
        .contains(
            "join[0].on[1]: join[0]: join key 'page' needs the second input's column 'page'"
                + " (joined as p_page), which its schema does not declare; its columns: user_id,"
                + " order_id, event_ts");
    assertThat(
            refused(
                SEED.replace(
                    "schema: { user_id: string, order_id", "schema: { user_id: long, order_id")))
        .contains(
            "join[0].on[0]: join[0]: join key 'user_id' is string on the left but long on the"
                + " right; the keys of a stream-stream join have the same types on both sides"
                + " (Spark, rule J4): declare them alike");
    assertThat(
            refused(
                SEED.replace(
                        "order_id: string, event_ts",
                        "order_id: string, paid_ts: timestamp, event_ts")
                    .replace("p_event_ts BETWEEN", "p_paid_ts BETWEEN")))
        .contains(
            "join[0].time: join[0]: time compares 'p_paid_ts' of the right input, whose watermark"
                + " is on 'p_event_ts'; compare the watermark columns");
    assertThat(refused(SEED.replace("AND event_ts + INTERVAL 30 MINUTES", "AND p_event_ts")))
        .contains(
            "join[0].time: join[0]: time: 'p_event_ts BETWEEN event_ts AND p_event_ts'"
                + " compares two columns of the right side");
    assertThat(
            refused(
                SEED.replace(
                    "watermark: { column: event_ts, delay: 10 minutes }\nsink",
                    "watermark: { column: p_event_ts, delay: 10 minutes }\nsink")))
        .contains(
            "watermark.column: with the stream-stream join join[0], watermark is the main input's"
                + " (the left side's), but 'p_event_ts' is a column of the second input; declare"
                + " the second input's watermark under join[0].stream.watermark");
    assertThat(refused(SEED.replace("page: string,", "page: string, p_order_id: string,")))
        .contains(
            "join[0].stream.prefix: join[0]: the second input's column order_id becomes"
                + " p_order_id with the prefix, which the main input already has; choose another"
                + " prefix");
  }

  @Test
  void theFirstVersionsLimitsAreRefusedWithTheirReasons() throws Exception {
    assertThat(refused(SEED.replace("topics: [clicks] }", "topics: [clicks], assignment: group }")))
        .contains(
            "source.kafka.assignment: assignment: group is not supported with the stream-stream"
                + " join join[0] (issue 25, v1: both inputs are read by one instance); remove"
                + " assignment");
    assertThat(refused(SEED + "trigger: { continuous: 1s }\n"))
        .contains(
            "trigger.continuous: trigger continuous is for stateless Kafka to Kafka pipelines;"
                + " join[0] is a stream-stream join, which runs in micro-batches");
    assertThat(refused(SEED + "backfill: { schedule: \"0 0 3 * * *\" }\n"))
        .contains(
            file()
                + ":16:1: backfill: backfill is not supported with the stream-stream join join[0]"
                + " (issue 25, v1: a backfill reads one input by timestamp); remove backfill");
    assertThat(
            refused(
                SEED.replace(
                    "      prefix: p_\n",
                    "      prefix: p_\n      transform: [{ filter: \"order_id IS NOT NULL\" }]\n")))
        .contains(
            "join[0].stream.transform: the second input of join[0] has no transform of its own");
    String second =
        SEED.substring(
            SEED.indexOf("  - stream:"),
            SEED.indexOf("watermark: { column: event_ts, delay: 10 minutes }\nsink"));
    assertThat(refused(SEED.replace(second, second + second)))
        .contains("join[1]: join[1] is a second stream-stream join; a pipeline has at most one");
    assertThat(
            refused(
                "pipeline: clicks\n"
                    + SEED.substring(SEED.indexOf("source:"), SEED.indexOf("join:"))
                    + "watermark: { column: event_ts, delay: 1 minute, multiple: max }\n"
                    + "sink: { delta: { path: /tmp/tables/clicks } }\n"
                    + "checkpoint: /tmp/checkpoints/clicks\n"))
        .contains(
            "watermark.multiple: multiple chooses the global watermark among several inputs, but"
                + " this pipeline has one input (no join with stream:); remove multiple");
  }

  /**
   * An aggregation after the join (issue 25, step 8): validate shows it after the join with the
   * watermark it sees (D1) on the window's column, and the run line says run passes the joined rows
   * on; compile accepts it, with the window's column (the right's prefixed watermark column, D2) as
   * the operators' watermark column.
   */
  @Test
  void aWindowAfterTheJoinIsShownAfterItAndCompiles() throws Exception {
    String window =
        SEED
            + "aggregate:\n"
            + "  window: { column: p_event_ts, size: 5 minutes }\n"
            + "  group-by: [page]\n"
            + "  measures: { n: count() }\n";
    assertThat(validate(window)).as(cli.err()).isZero();
    assertThat(cli.out())
        .contains(
            "  after join:  aggregate (tumbling(p_event_ts, 5 minutes)) over the joined rows,"
                + " event time p_event_ts, with the join's output watermark max(0, min(left state"
                + " watermark, right state watermark, watermark))")
        .contains(
            "run and serve join the two inputs in each batch and pass the joined rows to the"
                + " operators after the join")
        .doesNotContain("step 8");
    Path file = dir.resolve("attribution.yaml");
    Files.writeString(file, window);
    CompiledPipeline compiled = PipelineFactory.compile(PipelineParser.parse(file));
    assertThat(compiled.stateful()).isPresent();
    assertThat(compiled.stateful().get().inputSchema())
        .isEqualTo(compiled.streamJoin().orElseThrow().outputSchema());
    assertThat(compiled.outputSchema().fieldNames())
        .containsExactly("window_start", "window_end", "page", "n");
  }

  @Test
  void backfillAndReplayRefuseTheJoinByThePipelinesName() throws Exception {
    Path file = dir.resolve("attribution.yaml");
    Files.writeString(file, SEED);

    assertThat(
            cli.run(
                "backfill",
                "--pipeline",
                file.toString(),
                "--from",
                "2026-11-01T00:00:00Z",
                "--to",
                "2026-11-02T00:00:00Z",
                "--into",
                dir.resolve("out").toString()))
        .isEqualTo(2);
    assertThat(cli.err())
        .contains(
            "Pipeline attribution cannot run:\n  - join[0]: backfill is not supported with a"
                + " stream-stream join (issue 25, first version): run or serve the pipeline"
                + " instead");
    cli.reset();
    assertThat(cli.run("replay-quarantine", "--pipeline", file.toString())).isEqualTo(2);
    assertThat(cli.err())
        .contains("join[0]: replay-quarantine is not supported with a stream-stream join");
  }
}
