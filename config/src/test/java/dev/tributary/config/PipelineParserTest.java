package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class PipelineParserTest {

  static final Path PIPELINES = Path.of("..", "pipelines");

  static final String MINIMAL =
      """
      pipeline: clicks
      source:
        kafka:
          bootstrap-servers: localhost:9092
          topics: [clicks]
      format:
        json:
          schema:
            id: string
            at: timestamp
      sink:
        delta:
          path: /data/tables/clicks/
      checkpoint: /data/checkpoints/clicks
      """;

  static PipelineSpec parse(String yaml) {
    return PipelineParser.parse(yaml, "test.yaml", Map.of());
  }

  @Test
  void parsesTheFullOrdersExample() {
    PipelineSpec spec =
        PipelineParser.parse(PIPELINES.resolve("orders.yaml"), Map.of("TRIBUTARY_DATA", "/d"));

    assertThat(spec.id()).isEqualTo("orders-hourly");
    KafkaSourceSpec source = spec.kafkaSource().orElseThrow();
    assertThat(source.bootstrapServers()).isEqualTo("localhost:9092");
    assertThat(source.topics()).isEqualTo(new TopicSelection.Topics(List.of("orders")));
    assertThat(source.startingOffsets()).isEqualTo(new StartingOffsets.Earliest());
    assertThat(source.maxOffsetsPerTrigger()).isEqualTo(OptionalLong.of(500_000));
    assertThat(source.failOnDataLoss()).isTrue();
    assertThat(source.properties()).isEmpty();
    assertThat(spec.format().orElseThrow().columns())
        .containsExactly(
            new ColumnSpec("order_id", ColumnType.Primitive.STRING),
            new ColumnSpec("customer_id", ColumnType.Primitive.STRING),
            new ColumnSpec("event_time", ColumnType.Primitive.TIMESTAMP),
            new ColumnSpec("amount_cents", ColumnType.Primitive.LONG));
    assertThat(spec.format().orElseThrow().maxRecordSize()).isEqualTo(Size.ofMegabytes(1));
    assertThat(spec.transforms())
        .containsExactly(
            new TransformStep.Filter("amount_cents > 0"),
            new TransformStep.Derive(Map.of("amount", "amount_cents / 100.0")));
    assertThat(spec.watermark()).contains(new WatermarkSpec("event_time", Duration.ofMinutes(15)));
    assertThat(spec.deduplicate())
        .contains(new DeduplicateSpec(List.of("order_id", "event_time"), false));
    AggregateSpec aggregate = spec.aggregate().orElseThrow();
    assertThat(aggregate.window())
        .contains(new WindowSpec.Tumbling("event_time", Duration.ofHours(1)));
    assertThat(aggregate.groupBy()).containsExactly("customer_id");
    assertThat(aggregate.measures())
        .containsExactly(
            entry("amount_cents", new Measure(MeasureFunction.SUM, Optional.of("amount_cents"))),
            entry("orders", new Measure(MeasureFunction.COUNT, Optional.empty())));
    assertThat(spec.outputMode()).isEqualTo(OutputMode.APPEND);
    assertThat(spec.sink())
        .isEqualTo(
            new DeltaSinkSpec(
                "/d/tables/orders-hourly", List.of(), Size.ofMegabytes(128), Compression.SNAPPY));
    assertThat(spec.quarantine())
        .isEqualTo(new DeltaTableSpec("/d/tables/orders-hourly-quarantine"));
    assertThat(spec.lateEvents()).contains(new DeltaTableSpec("/d/tables/orders-hourly-late"));
    assertThat(spec.checkpoint()).isEqualTo("/d/checkpoints/orders-hourly");
    assertThat(spec.trigger()).isEqualTo(new TriggerSpec.ProcessingTime(Duration.ofSeconds(30)));
    assertThat(spec.maintenance())
        .isEqualTo(
            new MaintenanceSpec(
                Optional.of(new CompactionSpec("0 0 * * * *", 10)),
                Optional.of(new VacuumSpec("0 0 3 * * *", Duration.ofDays(7))),
                10));
    assertThat(spec.backfill()).contains(new BackfillSpec("0 0 2 * * *"));
    assertThat(spec.storage()).isEmpty();
    assertThat(spec.outputColumns())
        .containsExactly("window_start", "window_end", "customer_id", "amount_cents", "orders");
  }

  @Test
  void parsesTheStatelessEventsExample() {
    PipelineSpec spec = PipelineParser.parse(PIPELINES.resolve("events-stateless.yaml"), Map.of());

    assertThat(spec.id()).isEqualTo("events-raw");
    assertThat(spec.kafkaSource().orElseThrow().topics())
        .isEqualTo(new TopicSelection.TopicPattern("events-.*"));
    assertThat(spec.kafkaSource().orElseThrow().startingOffsets())
        .isEqualTo(new StartingOffsets.Latest());
    assertThat(spec.kafkaSource().orElseThrow().failOnDataLoss()).isFalse();
    assertThat(spec.format().orElseThrow().column("user.id"))
        .contains(new ColumnSpec("user.id", ColumnType.Primitive.STRING));
    assertThat(spec.format().orElseThrow().column("user.id").orElseThrow().jsonPath())
        .containsExactly("user", "id");
    assertThat(spec.format().orElseThrow().column("price"))
        .contains(new ColumnSpec("price", new ColumnType.Decimal(10, 2)));
    assertThat(spec.format().orElseThrow().maxRecordSize()).isEqualTo(new Size(256 * 1024));
    assertThat(spec.aggregate()).isEmpty();
    assertThat(spec.watermark()).isEmpty();
    assertThat(spec.sink().partitionBy()).containsExactly("event_date");
    assertThat(spec.sink().compression()).isEqualTo(Compression.ZSTD);
    assertThat(spec.sink().path()).isEqualTo("target/tributary-data/tables/events-raw");
    assertThat(spec.maintenance().compaction()).contains(new CompactionSpec("0 */15 * * * *", 10));
    assertThat(spec.maintenance().vacuum()).isEmpty();
    assertThat(spec.outputColumns())
        .containsExactly(
            "event_id",
            "user.id",
            "user.country",
            "event_type",
            "event_time",
            "event_date",
            "price",
            "quantity",
            "premium",
            "score",
            "total",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp");
  }

  @Test
  void appliesTheDocumentedDefaults() {
    PipelineSpec spec = parse(MINIMAL);

    assertThat(spec.kafkaSource().orElseThrow().startingOffsets())
        .isEqualTo(new StartingOffsets.Earliest());
    assertThat(spec.kafkaSource().orElseThrow().maxOffsetsPerTrigger()).isEmpty();
    assertThat(spec.kafkaSource().orElseThrow().failOnDataLoss()).isTrue();
    assertThat(spec.transforms()).isEmpty();
    assertThat(spec.outputMode()).isEqualTo(OutputMode.APPEND);
    assertThat(spec.trigger()).isEqualTo(new TriggerSpec.ProcessingTime(Duration.ofSeconds(10)));
    assertThat(spec.sink().targetFileSize()).isEqualTo(new Size(128L * 1024 * 1024));
    assertThat(spec.sink().compression()).isEqualTo(Compression.SNAPPY);
    assertThat(spec.sink().partitionBy()).isEmpty();
    assertThat(spec.quarantine().path()).isEqualTo("/data/tables/clicks-quarantine");
    assertThat(spec.lateEvents()).isEmpty();
    assertThat(spec.format().orElseThrow().maxRecordSize()).isEqualTo(new Size(1024 * 1024));
    assertThat(spec.maintenance())
        .isEqualTo(new MaintenanceSpec(Optional.empty(), Optional.empty(), 10));
    assertThat(spec.backfill()).isEmpty();
    assertThat(spec.storage()).isEmpty();
  }

  @Test
  void readsTheAlternativeForms() {
    PipelineSpec spec =
        parse(
            MINIMAL.replace(
                    "topics: [clicks]",
                    """
        topic-pattern: "clicks-.*"
            starting-offsets: "timestamp:2026-01-01T00:00:00Z"
            properties:
              security.protocol: SASL_SSL
              max.poll.records: 500
              sasl.jaas.config: "secret stuff"
        """
                        .strip())
                + """
        trigger: { available-now: true }
        deduplicate: { keys: [id], within-watermark: true }
        watermark: { column: at, delay: 0s }
        output-mode: update
        aggregate:
          window: { column: at, session-gap: 10 minutes }
          measures: { n: count(id), distinct_ids: count_distinct(id) }
        storage:
          s3: { endpoint: "http://localhost:9000", region: us-east-1, path-style: true,
                access-key: AK, secret-key: "SK" }
        """);

    assertThat(spec.kafkaSource().orElseThrow().topics().canonical())
        .isEqualTo("topic-pattern=clicks-.*");
    assertThat(
            ((TopicSelection.TopicPattern) spec.kafkaSource().orElseThrow().topics())
                .pattern()
                .matcher("clicks-eu")
                .matches())
        .isTrue();
    assertThat(spec.kafkaSource().orElseThrow().startingOffsets())
        .isEqualTo(new StartingOffsets.AtTimestamp(Instant.parse("2026-01-01T00:00:00Z")));
    assertThat(spec.kafkaSource().orElseThrow().properties())
        .containsOnly(
            entry("security.protocol", "SASL_SSL"),
            entry("max.poll.records", "500"),
            entry("sasl.jaas.config", "secret stuff"));
    assertThat(spec.trigger()).isEqualTo(new TriggerSpec.AvailableNow());
    assertThat(spec.deduplicate()).contains(new DeduplicateSpec(List.of("id"), true));
    assertThat(spec.watermark().orElseThrow().delay()).isZero();
    assertThat(spec.outputMode()).isEqualTo(OutputMode.UPDATE);
    assertThat(spec.aggregate().orElseThrow().window())
        .contains(new WindowSpec.Session("at", Duration.ofMinutes(10)));
    assertThat(spec.aggregate().orElseThrow().groupBy()).isEmpty();
    assertThat(spec.storage())
        .contains(
            new StorageSpec(
                Optional.of("http://localhost:9000"),
                Optional.of("us-east-1"),
                true,
                Optional.of("AK"),
                Optional.of("SK")));
  }

  @Test
  void readsSlidingWindowsAndOnceTriggers() {
    PipelineSpec spec =
        parse(
            MINIMAL
                + """
        watermark: { column: at, delay: 1 minute }
        trigger: { once: true }
        aggregate:
          window: { column: at, size: 1 hour, slide: 15 minutes }
          group-by: [id]
          measures: { n: count() }
        """);

    assertThat(spec.trigger()).isEqualTo(new TriggerSpec.Once());
    assertThat(spec.aggregate().orElseThrow().window())
        .contains(new WindowSpec.Sliding("at", Duration.ofHours(1), Duration.ofMinutes(15)));
  }

  @Test
  void readsARunningAggregationWithoutWindowAndTheNewMeasures() {
    PipelineSpec spec =
        parse(
            MINIMAL
                + """
        output-mode: update
        aggregate:
          group-by: [id]
          measures: { f: first(at), l: last( at ), users: approx_count_distinct(id) }
        """);

    AggregateSpec aggregate = spec.aggregate().orElseThrow();
    assertThat(aggregate.window()).isEmpty();
    assertThat(aggregate.running()).isTrue();
    assertThat(aggregate.measures().values())
        .extracting(Measure::function)
        .containsExactly(
            MeasureFunction.FIRST, MeasureFunction.LAST, MeasureFunction.APPROX_COUNT_DISTINCT);
    assertThat(spec.outputColumns()).containsExactly("id", "f", "l", "users");
    assertThat(spec.checkpointIdentity())
        .containsEntry("aggregate.window", "none")
        .containsEntry(
            "aggregate.measures", "f=first(at), l=last(at), users=approx_count_distinct(id)");
  }

  @Test
  void substitutesEnvironmentVariablesBeforeConverting() {
    PipelineSpec spec =
        PipelineParser.parse(
            MINIMAL
                .replace(
                    "topics: [clicks]",
                    """
        topics: ["${TOPIC}"]
            max-offsets-per-trigger: ${MAX:-1000}
            fail-on-data-loss: ${STRICT:-true}
        """
                        .strip())
                .replace("/data/checkpoints/clicks", "${CP_ROOT}/clicks-$${literal}"),
            "test.yaml",
            Map.of("TOPIC", "clicks-v2", "CP_ROOT", "s3://cp", "STRICT", "false"));

    assertThat(spec.kafkaSource().orElseThrow().topics())
        .isEqualTo(new TopicSelection.Topics(List.of("clicks-v2")));
    assertThat(spec.kafkaSource().orElseThrow().maxOffsetsPerTrigger()).hasValue(1000);
    assertThat(spec.kafkaSource().orElseThrow().failOnDataLoss()).isFalse();
    assertThat(spec.checkpoint()).isEqualTo("s3://cp/clicks-${literal}");
  }

  @Test
  void masksSecretsInEveryToString() {
    PipelineSpec spec =
        parse(
            MINIMAL.replace(
                    "topics: [clicks]",
                    """
        topics: [clicks]
            properties:
              ssl.keystore.password: hunter2
              sasl.jaas.config: "org.apache.kafka.common.security.plain.PlainLoginModule required password='pw1';"
              basic.auth.user.info.secret: s3cr3t
              security.protocol: SASL_SSL
        """
                        .strip())
                + """
        storage:
          s3: { access-key: AKIAEXAMPLE, secret-key: wJalrXUtnFEMI }
        """);

    String all = spec.toString() + spec.source() + spec.storage().orElseThrow();
    assertThat(all)
        .doesNotContain(
            "hunter2", "pw1", "PlainLoginModule", "s3cr3t", "wJalrXUtnFEMI", "AKIAEXAMPLE")
        .contains(
            "security.protocol=SASL_SSL",
            "ssl.keystore.password=******",
            "secretKey=Optional[******]",
            "accessKey=Optional[******]");
    assertThat(spec.kafkaSource().orElseThrow().properties())
        .containsEntry("ssl.keystore.password", "hunter2");
  }

  @Test
  void readsQuotedAndUnquotedScalarsAlike() {
    PipelineSpec spec =
        parse(
            MINIMAL.replace(
                "topics: [clicks]",
                """
        topics: [clicks]
            max-offsets-per-trigger: "2_000"
            fail-on-data-loss: "FALSE"
        """
                    .strip()));

    assertThat(spec.kafkaSource().orElseThrow().maxOffsetsPerTrigger()).hasValue(2000);
    assertThat(spec.kafkaSource().orElseThrow().failOnDataLoss()).isFalse();
  }
}
