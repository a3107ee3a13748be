package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The {@code join} list with both kinds of entry: a stream-static join ({@code delta:}) and a
 * stream-stream join ({@code stream:}), told apart by that key, each refusing the other's keys;
 * every error at its key path and line.
 */
class JoinReaderTest {

  /** Clicks (lines 1-13) with a watermark; the join list starts at line 14. */
  static final String CLICKS =
      """
      pipeline: clicks
      source: { kafka: { bootstrap-servers: broker:9092, topics: [clicks] } }
      format:
        json:
          schema: { user_id: string, page: string, event_ts: timestamp }
      watermark: { column: event_ts, delay: 10 minutes }
      sink:
        delta: { path: /t/attributed }
      checkpoint: /c/attributed
      trigger: { processing-time: 1 minute }
      output-mode: append
      quarantine: { delta: { path: /t/attributed-bad } }
      late-events: { delta: { path: /t/attributed-late } }
      """;

  /** The seed's purchases input, join[0] (lines 14-22). */
  static final String SEED =
      """
      join:
        - stream:
            source: { kafka: { topics: [purchases] } }
            format: { json: { schema: { user_id: string, order_id: string, event_ts: timestamp } } }
            watermark: { column: event_ts, delay: 10 minutes }
            prefix: p_
          on: [user_id]
          time: "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES"
          type: inner
      """;

  static final String SEED_PIPELINE = CLICKS + SEED;

  @Test
  void readsTheSeedJoinWithTheMainSourcesServers() {
    PipelineSpec spec = parse(SEED_PIPELINE);

    StreamJoinSpec join = spec.streamJoin().orElseThrow();
    assertThat(spec.joins()).isEmpty();
    assertThat(join.type()).isEqualTo(StreamJoinType.INNER);
    assertThat(join.on()).containsExactly("user_id");
    assertThat(join.rightKeys()).containsExactly("p_user_id");
    KafkaSourceSpec purchases = (KafkaSourceSpec) join.stream().source();
    assertThat(purchases.bootstrapServers()).isEqualTo("broker:9092");
    assertThat(purchases.topics()).isEqualTo(new TopicSelection.Topics(List.of("purchases")));
    assertThat(purchases.assignment()).isEqualTo(Assignment.EXCLUSIVE);
    assertThat(join.stream().format().orElseThrow().columns())
        .extracting(ColumnSpec::name)
        .containsExactly("user_id", "order_id", "event_ts");
    assertThat(join.stream().watermark())
        .hasValue(new WatermarkSpec("event_ts", Duration.ofMinutes(10)));
    assertThat(join.stream().watermarkColumn()).hasValue("p_event_ts");
    assertThat(join.time().canonical())
        .isEqualTo("event_ts <= p_event_ts AND p_event_ts - 30 min <= event_ts");
    assertThat(spec.watermark().orElseThrow().multiple()).isEqualTo(WatermarkSpec.Multiple.MIN);
    assertThat(spec.outputColumns())
        .containsExactly(
            "user_id",
            "page",
            "event_ts",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp",
            "p_user_id",
            "p_order_id",
            "p_event_ts");
  }

  @Test
  void readsBothKindsStaticJoinsFirstAndEveryStreamKey() {
    PipelineSpec spec =
        parse(
            CLICKS.replace("delay: 10 minutes }", "delay: 10 minutes, multiple: max }")
                + """
                join:
                  - delta: { path: /dims/users }
                    on: [user_id]
                    columns: [segment]
                  - stream:
                      source:
                        kafka:
                          bootstrap-servers: other:9092
                          topics: [purchases]
                          starting-offsets: latest
                          max-offsets-per-trigger: 500
                      format: { json: { schema: { user_id: string, event_ts: timestamp } } }
                      watermark: { column: event_ts, delay: 5 minutes }
                      prefix: p_
                    on: [user_id]
                    type: left-semi
                    time: "p_event_ts <= event_ts + INTERVAL 5 MINUTES"
                """);

    assertThat(spec.joins()).extracting(JoinSpec::path).containsExactly("/dims/users");
    StreamJoinSpec join = spec.streamJoin().orElseThrow();
    assertThat(join.type()).isEqualTo(StreamJoinType.LEFT_SEMI);
    KafkaSourceSpec purchases = (KafkaSourceSpec) join.stream().source();
    assertThat(purchases.bootstrapServers()).isEqualTo("other:9092");
    assertThat(purchases.startingOffsets()).isEqualTo(new StartingOffsets.Latest());
    assertThat(purchases.maxOffsetsPerTrigger()).hasValue(500);
    assertThat(spec.watermark().orElseThrow().multiple()).isEqualTo(WatermarkSpec.Multiple.MAX);
    // left semi outputs the left row only
    assertThat(spec.outputColumns()).endsWith("_kafka_timestamp", "segment");
  }

  @Test
  void aDeltaTableAsTheSecondInputHasNoFormat() {
    String delta =
        SEED_PIPELINE.replace(
            "      source: { kafka: { topics: [purchases] } }\n"
                + "      format: { json: { schema: { user_id: string, order_id: string, event_ts:"
                + " timestamp } } }\n",
            "      source: { delta: { path: /lake/purchases, max-files-per-trigger: 2 } }\n");
    StreamJoinSpec join = parse(delta).streamJoin().orElseThrow();

    assertThat(join.stream().source()).isInstanceOf(DeltaSourceSpec.class);
    assertThat(((DeltaSourceSpec) join.stream().source()).maxFilesPerTrigger()).hasValue(2);
    assertThat(join.stream().format()).isEmpty();
    // its columns are read at start: the output lists none of them yet
    assertThat(parse(delta).outputColumns()).endsWith("_kafka_timestamp");
  }

  @Test
  void aStreamJoinWithoutTimeHasNoBounds() {
    StreamJoinSpec join =
        parse(SEED_PIPELINE.replace("    time: \"p_event_ts BETWEEN", "    #"))
            .streamJoin()
            .orElseThrow();

    assertThat(join.time()).isEqualTo(TimeCondition.NONE);
  }

  @Test
  void eachKindRefusesTheOthersKeysAtTheirLines() {
    assertThat(
            errors(
                CLICKS
                    + """
                join:
                  - delta: { path: /dims/users }
                    on: [user_id]
                    time: "x < y"
                """))
        .containsExactly(
            "orders.yaml:17:5: join[0].time: join[0] joins a Delta table (delta:), which matches"
                + " on its keys only: time is the time condition of a stream-stream join (stream:);"
                + " remove time");
    assertThat(errors(SEED_PIPELINE + "    max-size: 1GB\n    columns: [p_order_id]\n"))
        .containsExactly(
            "orders.yaml:23:5: join[0].max-size: join[0] is a stream-stream join: max-size belongs"
                + " to a join with a Delta table (a stream join outputs every column of its input,"
                + " named prefix + column, and its state is bounded by time and watermarks); remove"
                + " max-size",
            "orders.yaml:24:5: join[0].columns: join[0] is a stream-stream join: columns belongs"
                + " to a join with a Delta table (a stream join outputs every column of its input,"
                + " named prefix + column, and its state is bounded by time and watermarks); remove"
                + " columns");
  }

  @Test
  void anEntryWithBothKindsOrNeitherIsRefused() {
    assertThat(
            errors(
                CLICKS
                    + "join:\n  - delta: { path: /d }\n    stream: { prefix: p_ }\n    on: [user_id]\n"))
        .containsExactly(
            "orders.yaml:15:5: join[0]: a join entry has either delta (a stream-static join with a"
                + " Delta table) or stream (a stream-stream join with a second input), not both");
    assertThat(errors(CLICKS + "join:\n  - on: [user_id]\n"))
        .containsExactly(
            "orders.yaml:15:5: join[0]: a join entry needs delta: { path: ... } (a Delta"
                + " dimension table) or stream: { source: ..., format: ..., prefix: ... } (a second"
                + " stream)");
  }

  @Test
  void theSecondInputsMistakesAreReportedAtTheirPaths() {
    assertThat(
            errors(
                SEED_PIPELINE
                    .replace("topics: [purchases]", "topics: [purchases], assignment: group")
                    .replace("{ user_id: string, order_id", "{ user_id: strin, order_id")
                    .replace("delay: 10 minutes }\n      prefix", "delay: soon }\n      prefix")
                    .replace("prefix: p_", "prefix: 9p")))
        .containsExactly(
            "orders.yaml:16:47: join[0].stream.source.kafka.assignment: unknown key 'assignment'"
                + " here; it belongs under 'source.kafka'",
            "orders.yaml:17:44: join[0].stream.format.json.schema.user_id: unknown column type"
                + " 'strin'; use string, byte, short, int, long, float, double, boolean, timestamp,"
                + " timestamp(seconds|micros|nanos), timestamp_ntz, date or decimal(p,s) like"
                + " decimal(10,2)",
            "orders.yaml:18:45: join[0].stream.watermark.delay: cannot parse 'soon' as a duration;"
                + " write a number and a unit like 500ms, 30s, 10 minutes, 1 hour or 7 days",
            "orders.yaml:19:15: join[0].stream.prefix: prefix '9p' is not a column name start; use"
                + " letters, digits and _ (not starting with a digit), e.g. p_");
  }

  @Test
  void aSecondKafkaInputNeedsServersWhenTheMainSourceIsADeltaTable() {
    String delta =
        SEED_PIPELINE
            .replace(
                "source: { kafka: { bootstrap-servers: broker:9092, topics: [clicks] } }",
                "source: { delta: { path: /lake/clicks } }")
            .replace(
                "format:\n  json:\n    schema: { user_id: string, page: string, event_ts: timestamp }\n",
                "");

    assertThat(errors(delta))
        .singleElement()
        .asString()
        .contains(
            "join[0].stream.source.kafka.bootstrap-servers: missing required key"
                + " 'bootstrap-servers'; add it, for example bootstrap-servers: localhost:9092 (the"
                + " main source is not Kafka, so there is no default)");
  }

  @Test
  void aBadTimeConditionAndALeftAntiTypeAreRefusedWithTheirReasons() {
    assertThat(
            errors(
                SEED_PIPELINE
                    .replace("+ INTERVAL 30 MINUTES", "+ INTERVAL 1 MONTH")
                    .replace("type: inner", "type: left-anti")))
        .containsExactly(
            "orders.yaml:21:11: join[0].time: join[0]: time: INTERVAL 1 MONTH: months and years are"
                + " imprecise (their length varies), so Spark derives no state watermark from them;"
                + " write the interval in days, e.g. INTERVAL 30 DAYS",
            "orders.yaml:22:11: join[0].type: join[0]: LeftAnti joins with a streaming"
                + " DataFrame/Dataset on the right are not supported (Spark, rule J1); use inner,"
                + " left, right, full or left-semi");
  }

  @Test
  void aSecondStreamJoinAndAStaticJoinAfterTheStreamJoinAreRefused() {
    String second = SEED.replace("join:\n", "");
    assertThat(errors(SEED_PIPELINE + second))
        .singleElement()
        .asString()
        .isEqualTo(
            "orders.yaml:23:5: join[1]: join[1] is a second stream-stream join; a pipeline has at"
                + " most one for now (join[0] is one; issue 25): remove it, or chain two pipelines"
                + " through a table");
    assertThat(errors(SEED_PIPELINE + "  - delta: { path: /dims/users }\n    on: [user_id]\n"))
        .singleElement()
        .asString()
        .isEqualTo(
            "orders.yaml:23:5: join[1]: join[1] (a join with a Delta table) comes after the"
                + " stream-stream join join[0], but a stream join applies to the main input after"
                + " every stream-static join; list the delta entries first");
  }

  @Test
  void theSecondInputHasNoTransformOfItsOwn() {
    assertThat(
            errors(
                SEED_PIPELINE.replace(
                    "      prefix: p_\n",
                    "      prefix: p_\n      transform: [{ filter: \"order_id IS NOT NULL\" }]\n")))
        .containsExactly(
            "orders.yaml:20:7: join[0].stream.transform: the second input of join[0] has no"
                + " transform of its own (not built yet, issue 25: its rows are joined as decoded);"
                + " remove transform");
  }

  @Test
  void anUnknownMultipleIsRefusedWithSparksWordsAndMultipleNeedsAStreamJoin() {
    assertThat(
            errors(
                SEED_PIPELINE.replace(
                    "delay: 10 minutes }\nsink", "delay: 10 minutes, multiple: avg }\nsink")))
        .containsExactly(
            "orders.yaml:6:61: watermark.multiple: Could not recognize watermark policy 'avg':"
                + " valid values are 'min' and 'max' (Spark's"
                + " spark.sql.streaming.multipleWatermarkPolicy; rule R6). min (default): the slower"
                + " input holds the watermark back; max: the faster input drives it");
    assertThat(errors(CLICKS.replace("delay: 10 minutes }", "delay: 10 minutes, multiple: max }")))
        .containsExactly(
            "orders.yaml:6:51: watermark.multiple: multiple chooses the global watermark among"
                + " several inputs, but this pipeline has one input (no join with stream:); remove"
                + " multiple");
  }

  @Test
  void aStaticJoinReadsAsBefore() {
    JoinSpec join =
        parse(CLICKS + "join:\n  - delta: { path: /dims/users }\n    on: [user_id]\n")
            .joins()
            .get(0);

    assertThat(join)
        .isEqualTo(
            new JoinSpec(
                "/dims/users",
                Optional.empty(),
                List.of("user_id"),
                JoinType.INNER,
                JoinSpec.DEFAULT_MAX_SIZE,
                Optional.empty()));
  }
}
