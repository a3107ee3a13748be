package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Checks of meaning: references between parts, output modes, windows, schedules, locations. */
class PipelineValidationTest {

  /** Lines 1-18; a pipeline with a typed schema and one derived column, valid as it is. */
  static final String BASE =
      """
      pipeline: orders
      source:
        kafka:
          bootstrap-servers: localhost:9092
          topics: [orders]
      format:
        json:
          schema:
            order_id: string
            customer.id: string
            event_time: timestamp
            amount_cents: long
            day: date
      transform:
        - derive: { amount: "amount_cents / 100.0" }
      sink:
        delta: { path: /t/orders, partition-by: [day] }
      checkpoint: /c/orders
      """;

  static PipelineSpec parse(String yaml) {
    return PipelineParser.parse(yaml, "orders.yaml", Map.of());
  }

  @Test
  void theBaseIsValid() {
    assertThat(parse(BASE).sink().partitionBy()).containsExactly("day");
  }

  @Test
  void refusesExpressionsTooLargeToCompileSafelyAtTheirLine() {
    String ors = "amount_cents=0" + " OR amount_cents=1".repeat(520);
    assertThat(
            errors(
                BASE.replace(
                    "- derive: { amount: \"amount_cents / 100.0\" }", "- filter: \"" + ors + "\"")))
        .singleElement()
        .asString()
        .startsWith(
            "orders.yaml:15:13: transform[0].filter: the expression has more than 500 operators;"
                + " write a long list of alternatives as column IN (value, ...)");
    String nested = "(".repeat(3000) + "amount_cents" + ")".repeat(3000);
    assertThat(errors(BASE.replace("amount_cents / 100.0", nested)))
        .singleElement()
        .asString()
        .startsWith(
            "orders.yaml:15:23: transform[0].derive.amount: the expression is nested more than 64"
                + " parentheses deep");
    assertThat(errors(BASE.replace("amount_cents / 100.0", "'" + "x".repeat(20_000) + "'")))
        .singleElement()
        .asString()
        .contains("characters long, more than the 10000 allowed");
  }

  @Test
  void parenthesesAndOperatorsInsideStringsDoNotCount() {
    String text = "'" + "(-OR-".repeat(1000) + "'";
    assertThat(ExpressionBounds.check(text)).isEmpty();
    assertThat(ExpressionBounds.check("(".repeat(64) + "a" + ")".repeat(64))).isEmpty();
    assertThat(ExpressionBounds.check("a" + " OR a".repeat(500))).isEmpty();
    assertThat(ExpressionBounds.check("a" + " OR a".repeat(501)))
        .hasValueSatisfying(v -> assertThat(v.position()).isEqualTo(1 + 5 * 500 + 2));
  }

  @Test
  void readsTheWatermarkPolicyAndRefusesAnUnknownOne() {
    String global = BASE + "watermark: { column: event_time, delay: 15 minutes }\n";
    assertThat(parse(global).watermark().orElseThrow().policy())
        .isEqualTo(WatermarkSpec.Policy.GLOBAL);
    String perPartition =
        BASE + "watermark: { column: event_time, delay: 15 minutes, policy: per-partition }\n";
    assertThat(parse(perPartition).watermark().orElseThrow().policy())
        .isEqualTo(WatermarkSpec.Policy.PER_PARTITION);
    assertThat(
            errors(
                BASE + "watermark: { column: event_time, delay: 15 minutes, policy: slowest }\n"))
        .singleElement()
        .asString()
        .contains("watermark.policy")
        .contains("'slowest'")
        .contains("global")
        .contains("per-partition");
  }

  @Test
  void readsTheWatermarkIdleTimeoutOffByDefaultAndRefusesZeroAtItsLine() {
    String none = BASE + "watermark: { column: event_time, delay: 15 minutes }\n";
    assertThat(parse(none).watermark().orElseThrow().idleTimeout()).isEmpty();
    String five = BASE + "watermark: { column: event_time, delay: 15 minutes, idle-timeout: 5m }\n";
    assertThat(parse(five).watermark().orElseThrow().idleTimeout()).hasValue(Duration.ofMinutes(5));
    assertThat(
            errors(
                BASE + "watermark: { column: event_time, delay: 15 minutes, idle-timeout: 0s }\n"))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:19:")
        .contains("watermark.idle-timeout")
        .contains("must be greater than zero");
    assertThat(
            errors(
                BASE
                    + "watermark: { column: event_time, delay: 15 minutes, idle-timeout: soon }\n"))
        .singleElement()
        .asString()
        .contains("watermark.idle-timeout")
        .contains("'soon'");
  }

  @Test
  void readsTheAssignmentExclusiveByDefault() {
    assertThat(parse(BASE).kafkaSource().orElseThrow().assignment())
        .isEqualTo(Assignment.EXCLUSIVE);
    String group = BASE.replace("topics: [orders]", "topics: [orders]\n    assignment: group");
    assertThat(parse(group).kafkaSource().orElseThrow().assignment()).isEqualTo(Assignment.GROUP);
    assertThat(errors(BASE.replace("topics: [orders]", "topics: [orders]\n    assignment: shared")))
        .singleElement()
        .asString()
        .contains("source.kafka.assignment")
        .contains("'shared'")
        .contains("exclusive")
        .contains("group");
  }

  @Test
  void acceptsStatefulAppendWithGroupAssignment() {
    String group =
        BASE.replace("topics: [orders]", "topics: [orders]\n    assignment: group")
            + "watermark: { column: event_time, delay: 10 minutes }\n"
            + "deduplicate: { keys: [order_id, event_time] }\n";
    PipelineSpec spec = parse(group);
    assertThat(spec.kafkaSource().orElseThrow().assignment()).isEqualTo(Assignment.GROUP);
    assertThat(spec.deduplicate()).isPresent();
  }

  @Test
  void refusesStartingOffsetsTableForAStatefulGroupPipeline() {
    String group =
        BASE.replace(
                "topics: [orders]",
                "topics: [orders]\n    assignment: group\n    starting-offsets: table")
            + "watermark: { column: event_time, delay: 10 minutes }\n"
            + "deduplicate: { keys: [order_id, event_time] }\n";
    assertThat(errors(group))
        .singleElement()
        .asString()
        .contains("source.kafka.starting-offsets")
        .contains(
            "pipeline orders: starting-offsets: table is not supported for a stateful pipeline with assignment: group");
  }

  @Test
  void refusesUpdateModeAndPerPartitionWatermarkWithGroupAssignmentNamingTheLine() {
    String group =
        BASE.replace("topics: [orders]", "topics: [orders]\n    assignment: group")
                .replace("partition-by: [day]", "partition-by: []")
            + "watermark: { column: event_time, delay: 10 minutes, policy: per-partition }\n"
            + "aggregate:\n  window: { column: event_time, size: 1 hour }\n  group-by: [order_id]\n"
            + "  measures: { orders: count() }\n"
            + "output-mode: update\n";
    assertThat(errors(group))
        .hasSize(2)
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains("output-mode")
                    .contains(
                        "pipeline orders: output-mode update is not supported with assignment: group"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .contains("watermark.policy")
                    .contains(
                        "pipeline orders: watermark.policy per-partition is not supported with assignment: group"));
  }

  @Test
  void refusesABadPipelineId() {
    assertThat(errors(BASE.replace("pipeline: orders", "pipeline: orders_2026")))
        .containsExactly(
            "orders.yaml:1:11: pipeline: pipeline id 'orders_2026' may only contain lower-case letters, digits and"
                + " '-', like orders-hourly");
  }

  @Test
  void refusesAPipelineIdLongerThanTheLimit() {
    String longest = "a".repeat(PipelineSpec.MAX_ID_LENGTH);
    assertThat(parse(BASE.replace("pipeline: orders", "pipeline: " + longest)).id())
        .isEqualTo(longest);
    assertThat(errors(BASE.replace("pipeline: orders", "pipeline: " + longest + "b")))
        .containsExactly(
            "orders.yaml:1:11: pipeline: pipeline id '"
                + longest
                + "b' has 65 characters, more than the limit of 64"
                + " (the id names the pipeline's folders, Kafka consumer group and metric tags); choose a shorter id,"
                + " like orders-hourly");
  }

  @Test
  void requiresExactlyOneOfTopicsAndPattern() {
    assertThat(
            errors(
                BASE.replace("topics: [orders]", "topics: [orders]\n    topic-pattern: \"o.*\"")))
        .containsExactly(
            "orders.yaml:6:20: source.kafka.topic-pattern: declare either topics or topic-pattern,"
                + " not both");
    assertThat(errors(BASE.replace("    topics: [orders]\n", "")))
        .containsExactly(
            "orders.yaml:3:3: source.kafka.topics: missing topics; add topics: [name, ...] or topic-pattern: \"regex\"");
    assertThat(errors(BASE.replace("topics: [orders]", "topics: []")))
        .containsExactly(
            "orders.yaml:5:13: source.kafka.topics: missing topics; add topics: [name, ...] or topic-pattern: \"regex\"");
  }

  @Test
  void refusesAPatternThatDoesNotCompileAndInvalidTopicNames() {
    assertThat(errors(BASE.replace("topics: [orders]", "topic-pattern: \"orders-(\"")))
        .containsExactly(
            "orders.yaml:5:20: source.kafka.topic-pattern: topic-pattern 'orders-(' is not a valid regular"
                + " expression: Unclosed group");
    assertThat(errors(BASE.replace("topics: [orders]", "topics: [orders, \"bad topic\"]")))
        .containsExactly(
            "orders.yaml:5:22: source.kafka.topics[1]: 'bad topic' is not a valid Kafka topic name; use 1 to 249"
                + " letters, digits, '.', '_' or '-'");
  }

  @Test
  void refusesBadStartingOffsets() {
    assertThat(
            errors(
                BASE.replace("topics: [orders]", "topics: [orders]\n    starting-offsets: newest")))
        .containsExactly(
            "orders.yaml:6:23: source.kafka.starting-offsets: cannot parse 'newest' as starting"
                + " offsets; write earliest, latest, table or timestamp:2026-01-01T00:00:00Z");
    assertThat(
            errors(
                BASE.replace(
                    "topics: [orders]",
                    "topics: [orders]\n    starting-offsets: timestamp:2026-01-01")))
        .containsExactly(
            "orders.yaml:6:23: source.kafka.starting-offsets: cannot parse '2026-01-01' as an"
                + " instant; write it in UTC like timestamp:2026-01-01T00:00:00Z");
  }

  @Test
  void refusesBadColumnTypesAndNames() {
    assertThat(
            errors(
                BASE.replace(
                    "amount_cents: long", "amount_cents: decimal(40,2)\n      customer: string")))
        .containsExactly(
            "orders.yaml:12:21: format.json.schema.amount_cents: decimal(40,2) is out of range; precision must"
                + " be 1 to 38 and scale 0 to the precision",
            "orders.yaml:13:7: format.json.schema.customer: column 'customer' cannot be both a value and the"
                + " parent of 'customer.id'; declare only the nested fields you need");
  }

  @Test
  void requiresReferencedColumnsToExist() {
    String yaml =
        BASE.replace("partition-by: [day]", "partition-by: [dy]")
            + """
        watermark: { column: event_tme, delay: 1 minute }
        deduplicate: { keys: [order_id, missing_column] }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:17:44: sink.delta.partition-by[0]: partition column 'dy' is not a column of the pipeline;"
                + " did you mean 'day'?",
            "orders.yaml:19:22: watermark.column: watermark column 'event_tme' is not a column of the pipeline;"
                + " did you mean 'event_time'?",
            "orders.yaml:20:33: deduplicate.keys[1]: deduplicate key 'missing_column' is not a column of the"
                + " pipeline; available columns: order_id, customer.id, event_time, amount_cents, day, amount");
  }

  @Test
  void acceptsDerivedAndKafkaColumnsWithoutAggregation() {
    PipelineSpec spec =
        parse(
            BASE.replace("partition-by: [day]", "partition-by: [_kafka_partition, amount]")
                + "deduplicate: { keys: [customer.id, amount] }\n");

    assertThat(spec.sink().partitionBy()).containsExactly("_kafka_partition", "amount");
  }

  @Test
  void requiresTimestampTypedEventTimeColumns() {
    String yaml =
        BASE.replace("partition-by: [day]", "partition-by: []")
            + """
        watermark: { column: day, delay: 1 minute }
        aggregate:
          window: { column: day, size: 1 day }
          measures: { n: count() }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:19:22: watermark.column: watermark column 'day' has type date but must be a timestamp;"
                + " declare it as timestamp in format.json.schema",
            "orders.yaml:21:21: aggregate.window.column: window column 'day' has type date but must be a timestamp;"
                + " declare it as timestamp in format.json.schema");
  }

  @Test
  void anEpochUnitTimestampIsATimestampForEventTimes() {
    String yaml =
        BASE.replace("event_time: timestamp", "event_time: timestamp(nanos)")
            + """
        watermark: { column: event_time, delay: 1 minute }
        """;

    PipelineSpec spec = parse(yaml);

    assertThat(spec.format().orElseThrow().column("event_time").orElseThrow().type())
        .isEqualTo(new ColumnType.EpochTimestamp(ColumnType.EpochUnit.NANOS));
  }

  @Test
  void checksAggregationColumnsAndPartitionsAgainstTheOutput() {
    String yaml =
        BASE.replace("partition-by: [day]", "partition-by: [window_start, day]")
            + """
        watermark: { column: event_time, delay: 1 minute }
        aggregate:
          window: { column: event_time, size: 1 hour }
          group-by: [customer.id, customer.id, region]
          measures: { total: sum(amount), top: max(amount_cents) }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:17:58: sink.delta.partition-by[1]: partition column 'day' is not a column of the"
                + " pipeline; available columns: window_start, window_end, customer.id, region, total, top",
            "orders.yaml:22:27: aggregate.group-by[1]: aggregate.group-by lists 'customer.id' twice; list each"
                + " column once",
            "orders.yaml:22:40: aggregate.group-by[2]: group-by column 'region' is not a column of the pipeline;"
                + " available columns: order_id, customer.id, event_time, amount_cents, day, amount");
    assertThat(errors(yaml.replace("top:", "customer.id:")))
        .containsExactly(
            "orders.yaml:23:35: aggregate.measures.customer.id: measure name 'customer.id' must start with a letter"
                + " or _ and contain only letters, digits and _");
  }

  @Test
  void checksMeasureNamesAndInputs() {
    String yaml =
        BASE.replace("partition-by: [day]", "partition-by: []")
            + """
        watermark: { column: event_time, delay: 1 minute }
        aggregate:
          window: { column: event_time, size: 1 hour }
          group-by: [order_id]
          measures: { order_id: count(), window_end: min(nope), avg_amount: average(amount), s: sum() }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:23:69: aggregate.measures.avg_amount: unknown function 'average'; use count, sum, min,"
                + " max, avg, count_distinct, first, last or approx_count_distinct",
            "orders.yaml:23:89: aggregate.measures.s: sum() needs an input column, like sum(amount)");
    String names = yaml.replace(", avg_amount: average(amount), s: sum()", "");
    assertThat(errors(names))
        .containsExactly(
            "orders.yaml:23:15: aggregate.measures.order_id: measure name 'order_id' is already an output column"
                + " (window_start, window_end or a group-by column); rename the measure",
            "orders.yaml:23:34: aggregate.measures.window_end: measure name 'window_end' is already an output"
                + " column (window_start, window_end or a group-by column); rename the measure",
            "orders.yaml:23:46: aggregate.measures.window_end: measure input 'nope' is not a column of the"
                + " pipeline; available columns: order_id, customer.id, event_time, amount_cents, day, amount");
  }

  @Test
  void appendWithAggregationNeedsAWatermarkOnTheWindowColumn() {
    String aggregate =
        """
        aggregate:
          window: { column: event_time, size: 1 hour }
          measures: { n: count() }
        """;
    String base = BASE.replace("partition-by: [day]", "partition-by: []");

    assertThat(errors(base + aggregate))
        .containsExactly(
            "orders.yaml:20:3: aggregate: output-mode append"
                + " with an aggregation needs a watermark on the window column, so that a window is written once it can"
                + " no longer change; add watermark: { column: ..., delay: ... } or use output-mode update or complete");
    assertThat(errors(base + aggregate + "output-mode: append\n"))
        .singleElement()
        .asString()
        .startsWith(
            "orders.yaml:22:14: output-mode: output-mode append with an aggregation needs a watermark");
    assertThat(parse(base + aggregate + "output-mode: complete\n").outputMode())
        .isEqualTo(OutputMode.COMPLETE);

    String otherColumn =
        base.replace("day: date", "day: date\n      received: timestamp")
            + aggregate
            + "watermark: { column: received, delay: 1 minute }\n";
    assertThat(errors(otherColumn))
        .containsExactly(
            "orders.yaml:21:21: aggregate.window.column: the window is"
                + " on 'event_time' but the watermark is on 'received'; in append mode windows are only written when the"
                + " watermark passes their end, so both must use the same column");
  }

  @Test
  void aRunningAggregationRefusesAppendAndSaysWhatToUse() {
    String aggregate =
        """
        aggregate:
          group-by: [order_id]
          measures: { n: count(), first_at: first(event_time), users: approx_count_distinct(customer.id) }
        """;
    String base = BASE.replace("partition-by: [day]", "partition-by: []");
    String why =
        "output-mode append (the default) cannot write an aggregation without a window: a running"
            + " aggregation's rows change with every new event and are never final, so there is no time at which a"
            + " row could be written once (Spark refuses it too: append needs a watermark on a window). Declare"
            + " output-mode: update (the table is merged by the group-by columns each batch) or output-mode:"
            + " complete (the whole result is rewritten each batch), or add a window";

    assertThat(errors(base + aggregate)).containsExactly("orders.yaml:20:3: aggregate: " + why);
    // A watermark does not make a running aggregation appendable: its rows have no event time.
    assertThat(
            errors(
                base
                    + aggregate
                    + "watermark: { column: event_time, delay: 1 minute }\n"
                    + "output-mode: append\n"))
        .containsExactly("orders.yaml:23:14: output-mode: " + why);
    assertThat(parse(base + aggregate + "output-mode: update\n").outputColumns())
        .containsExactly("order_id", "n", "first_at", "users");
    assertThat(
            parse(base + aggregate + "output-mode: complete\n").aggregate().orElseThrow().running())
        .isTrue();
  }

  @Test
  void aRunningAggregationHasNoWindowColumns() {
    String yaml =
        BASE.replace("partition-by: [day]", "partition-by: [order_id]")
            + """
        output-mode: update
        aggregate:
          group-by: [order_id]
          measures: { window_end: max(event_time), last_amount: last(amount) }
        """;

    assertThat(parse(yaml).outputColumns())
        .containsExactly("order_id", "window_end", "last_amount");
    assertThat(errors(yaml.replace("partition-by: [order_id]", "partition-by: [window_start]")))
        .containsExactly(
            "orders.yaml:17:44: sink.delta.partition-by[0]: partition column 'window_start' is not a column of the"
                + " pipeline; available columns: order_id, window_end, last_amount");
  }

  @Test
  void refusesOutputModesThatDoNotFitTheQuery() {
    assertThat(errors(BASE + "output-mode: complete\n"))
        .containsExactly(
            "orders.yaml:19:14: output-mode:"
                + " output-mode complete rewrites the whole result each batch and needs an aggregate section; use append"
                + " for pipelines without aggregation");
    assertThat(errors(BASE + "output-mode: update\ndeduplicate: { keys: [order_id] }\n"))
        .containsExactly(
            "orders.yaml:19:14: output-mode: output-mode update is not supported for a deduplication without"
                + " aggregation (each row is written once); use output-mode append");
    assertThat(errors(BASE + "output-mode: replace\n"))
        .containsExactly(
            "orders.yaml:19:14: output-mode:"
                + " unknown output mode 'replace'; use one of append, update, complete");
    assertThat(parse(BASE + "output-mode: update\n").outputMode()).isEqualTo(OutputMode.UPDATE);
  }

  @Test
  void withinWatermarkDeduplicationNeedsAWatermark() {
    assertThat(errors(BASE + "deduplicate: { keys: [order_id], within-watermark: true }\n"))
        .containsExactly(
            "orders.yaml:19:52: deduplicate.within-watermark: within-watermark deduplication needs a watermark; add"
                + " watermark: { column: ..., delay: ... } or remove within-watermark");
  }

  @Test
  void checksSlidingWindowsAndSaysWhy() {
    String base =
        BASE.replace("partition-by: [day]", "partition-by: []")
            + "watermark: { column: event_time, delay: 1 minute }\naggregate:\n  measures: { n: count() }\n";

    assertThat(
            errors(
                base + "  window: { column: event_time, size: 10 minutes, slide: 15 minutes }\n"))
        .containsExactly(
            "orders.yaml:22:58: aggregate.window.slide: slide 15 minutes is larger than the window"
                + " size 10 minutes; windows would leave gaps and drop the events between them. Use a slide at most"
                + " the size");
    assertThat(errors(base + "  window: { column: event_time, size: 1 hour, slide: 25 minutes }\n"))
        .containsExactly(
            "orders.yaml:22:54: aggregate.window.slide: window size 1 hour is not a multiple of"
                + " the slide 25 minutes, so events would fall into a varying number of windows and windows would not"
                + " align with slide boundaries; choose a slide that divides the size (e.g. 15 minutes for 1 hour)");
    assertThat(
            errors(
                base + "  window: { column: event_time, size: 1 hour, session-gap: 5 minutes }\n"))
        .containsExactly(
            "orders.yaml:22:60: aggregate.window.session-gap: declare either size (tumbling, with"
                + " optional slide for sliding) or session-gap, not both");
    assertThat(errors(base + "  window: { column: event_time }\n"))
        .containsExactly(
            "orders.yaml:22:3:"
                + " aggregate.window: the window needs a size (tumbling or sliding) or a session-gap; add size: 1 hour");
    assertThat(
            errors(
                base
                    + "  window: { column: event_time, session-gap: 5 minutes, slide: 1 minute }\n"))
        .containsExactly(
            "orders.yaml:22:64: aggregate.window.slide: slide applies to sliding windows; it needs"
                + " a size and cannot go with session-gap");
  }

  @Test
  void requiresPositiveDurationsAndSizes() {
    String yaml =
        BASE.replace("partition-by: [day]", "partition-by: [day], target-file-size: 0MB")
            + """
        trigger: { processing-time: 0s }
        watermark: { column: event_time, delay: 0 minutes }
        maintenance:
          vacuum: { schedule: "0 0 3 * * *", retention: 0 days }
          log-checkpoint-interval: 0
          compaction: { schedule: "0 0 * * * *", min-files: 1 }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:17:68: sink.delta.target-file-size: the size must be greater than zero",
            "orders.yaml:19:29: trigger.processing-time: the duration must be greater than zero",
            "orders.yaml:22:49: maintenance.vacuum.retention: the duration must be greater than zero",
            "orders.yaml:23:28: maintenance.log-checkpoint-interval: '0' is too small; the minimum is 1",
            "orders.yaml:24:53: maintenance.compaction.min-files: '1' is too small; the minimum is 2");
  }

  @Test
  void requiresSixFieldCronSchedules() {
    String yaml =
        BASE
            + """
        maintenance:
          compaction: { schedule: "0 * * * *" }
          vacuum: { schedule: "0 0 3 * * * *" }
        backfill: { schedule: "0 0 2 ? * MON-FRI!" }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:20:27: maintenance.compaction.schedule: schedule '0 * * * *' has 5 fields but needs 6"
                + " (second minute hour day-of-month month day-of-week), like \"0 0 3 * * *\" for 03:00 every day; a"
                + " Unix cron expression lacks the leading seconds field",
            "orders.yaml:21:23: maintenance.vacuum.schedule: schedule '0 0 3 * * * *' has 7 fields but needs 6"
                + " (second minute hour day-of-month month day-of-week), like \"0 0 3 * * *\" for 03:00 every day",
            "orders.yaml:22:23: backfill.schedule: schedule '0 0 2 ? * MON-FRI!' has an invalid field 'MON-FRI!';"
                + " fields use digits, names, * ? / , - # only, like \"0 0 3 * * *\"");
    assertThat(
            parse(BASE + "backfill: { schedule: \"@daily\" }\n")
                .backfill()
                .orElseThrow()
                .schedule())
        .isEqualTo("@daily");
  }

  @Test
  void refusesSharedLocations() {
    String yaml =
        BASE.replace("checkpoint: /c/orders", "checkpoint: /t/orders/")
            + """
        quarantine: { delta: { path: /t/orders-late } }
        late-events: { delta: { path: /t/orders-late } }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:18:13: checkpoint: the checkpoint location '/t/orders/' is the same place as the"
                + " sink.delta.path location '/t/orders' (both are /t/orders); give each its own folder, side by side"
                + " rather than one inside the other, for example /t/orders-checkpoint",
            "orders.yaml:20:31: late-events.delta.path: the late-events.delta.path location '/t/orders-late' is the"
                + " same place as the quarantine.delta.path location '/t/orders-late' (both are /t/orders-late); give"
                + " each its own folder, side by side rather than one inside the other, for example"
                + " /t/orders-late-late");
  }

  @Test
  void refusesALocationInsideATable() {
    String yaml =
        BASE.replace("checkpoint: /c/orders", "checkpoint: /t/orders/_checkpoint")
            + """
        late-events: { delta: { path: "file:///t/orders/../orders/late" } }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:18:13: checkpoint: the checkpoint location '/t/orders/_checkpoint' is inside the"
                + " sink.delta.path location '/t/orders': vacuum of the table at /t/orders deletes every file under it"
                + " that the table does not reference; give each its own folder, side by side rather than one inside"
                + " the other, for example /t/orders-checkpoint",
            "orders.yaml:19:31: late-events.delta.path: the late-events.delta.path location"
                + " 'file:///t/orders/../orders/late' is inside the sink.delta.path location '/t/orders': vacuum of the"
                + " table at /t/orders deletes every file under it that the table does not reference; give each its"
                + " own folder, side by side rather than one inside the other, for example /t/orders-late");
  }

  @Test
  void refusesATableInsideTheCheckpointOrAnotherTable() {
    String yaml =
        BASE.replace("checkpoint: /c/orders", "checkpoint: s3://Lake/c")
                .replace("path: /t/orders", "path: s3://lake/c/./tables/orders/")
            + """
        quarantine: { delta: { path: "S3://lake//c/tables/orders/bad" } }
        """;

    assertThat(errors(yaml))
        .containsExactly(
            "orders.yaml:17:18: sink.delta.path: the sink.delta.path location 's3://lake/c/./tables/orders/' is inside"
                + " the checkpoint location 's3://Lake/c': removing the checkpoint (the way to start the pipeline"
                + " afresh) would delete it too; give each its own folder, side by side rather than one inside the"
                + " other, for example s3://Lake/c-sink",
            "orders.yaml:19:30: quarantine.delta.path: the quarantine.delta.path location"
                + " 'S3://lake//c/tables/orders/bad' is inside the sink.delta.path location"
                + " 's3://lake/c/./tables/orders/': vacuum of the table at s3://lake/c/./tables/orders/ deletes every"
                + " file under it that the table does not reference; give each its own folder, side by side rather"
                + " than one inside the other, for example s3://lake/c/./tables/orders-quarantine",
            "orders.yaml:19:30: quarantine.delta.path: the quarantine.delta.path location"
                + " 'S3://lake//c/tables/orders/bad' is inside the checkpoint location 's3://Lake/c': removing the"
                + " checkpoint (the way to start the pipeline afresh) would delete it too; give each its own folder,"
                + " side by side rather than one inside the other, for example s3://Lake/c-quarantine");
  }

  @Test
  void acceptsSiblingsWhoseNamesShareAPrefix() {
    String yaml =
        BASE.replace("checkpoint: /c/orders", "checkpoint: /t/orders-checkpoint")
            + """
        late-events: { delta: { path: /t/orders2 } }
        """;

    assertThat(parse(yaml).checkpoint()).isEqualTo("/t/orders-checkpoint");
  }

  @Test
  void refusesAVacuumRetentionUnderSevenDaysUnlessTheCheckIsOff() {
    String vacuum =
        """
        maintenance:
          vacuum: { schedule: "0 0 3 * * *", retention: 1s%s }
        """;

    assertThat(errors(BASE + vacuum.formatted("")))
        .containsExactly(
            "orders.yaml:20:49: maintenance.vacuum.retention: vacuum retention 1 second is under the minimum of 7 days:"
                + " vacuum deletes every file no snapshot references once it is older than the retention, including"
                + " Parquet files a running batch has written but not committed yet and files an older snapshot a"
                + " reader still scans uses. Use a retention of at least 7 days, or, if no batch or read ever takes"
                + " longer than the retention, set maintenance.vacuum.retention-check: false");
    assertThat(errors(BASE + vacuum.formatted(", retention-check: yes")))
        .containsExactly(
            "orders.yaml:20:70: maintenance.vacuum.retention-check: cannot parse 'yes' as a boolean; write true or false");
    VacuumSpec unchecked =
        parse(BASE + vacuum.formatted(", retention-check: false"))
            .maintenance()
            .vacuum()
            .orElseThrow();
    assertThat(unchecked.retention()).isEqualTo(Duration.ofSeconds(1));
    assertThat(unchecked.retentionCheck()).isFalse();
    assertThat(unchecked.unsafeRetention()).isTrue();
    VacuumSpec floor =
        parse(BASE + vacuum.formatted("").replace("1s", "7 days"))
            .maintenance()
            .vacuum()
            .orElseThrow();
    assertThat(floor.retentionCheck()).isTrue();
    assertThat(floor.unsafeRetention()).isFalse();
  }

  @Test
  void checksTriggersAndStorage() {
    assertThat(errors(BASE + "trigger: { once: true, available-now: true }\n"))
        .containsExactly(
            "orders.yaml:19:10: trigger: declare exactly one trigger: { processing-time: 30s }, { available-now: true },"
                + " { once: true } or { continuous: 1s }; found once, available-now");
    assertThat(errors(BASE + "trigger: { available-now: false }\n"))
        .containsExactly(
            "orders.yaml:19:27: trigger.available-now: available-now: false selects no trigger; remove the trigger"
                + " section for the default (processing-time: 10s) or choose another trigger");
    // An endpoint is no credential: the message shows it (only the keys are masked).
    assertThat(errors(BASE + "storage: { s3: { endpoint: minio:9000 } }\n"))
        .containsExactly(
            "orders.yaml:19:28: storage.s3.endpoint: endpoint 'minio:9000' is not an http(s) URL; write it like"
                + " http://localhost:9000");
    assertThat(
            errors(BASE + "storage: { s3: { endpoint: \"http://minio:9000\", access-key: AK } }\n"))
        .containsExactly(
            "orders.yaml:19:49: storage.s3.access-key: access-key and secret-key must be given"
                + " together (or neither, for the default credential chain)");
  }

  @Test
  void treatsAnEmptySubstitutedKeyPairAsAbsent() {
    PipelineSpec spec =
        parse(
            BASE
                + "storage: { s3: { region: eu-west-1, access-key: \"${AK:-}\","
                + " secret-key: \"${SK:-}\" } }\n");

    assertThat(spec.storage().orElseThrow().accessKey()).isEmpty();
    assertThat(spec.storage().orElseThrow().secretKey()).isEmpty();
  }
}
