package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The model's own rules: checkpoint identity, value parsers, invariants and defensive copies. */
class PipelineSpecTest {

  static PipelineSpec orders(String... replacements) throws Exception {
    String yaml = Files.readString(PipelineParserTest.PIPELINES.resolve("orders.yaml"));
    for (int i = 0; i < replacements.length; i += 2) {
      assertThat(yaml).contains(replacements[i]);
      yaml = yaml.replace(replacements[i], replacements[i + 1]);
    }
    return PipelineParser.parse(yaml, "orders.yaml", Map.of());
  }

  @Test
  void checkpointIdentityRendersEveryStatefulPartCanonically() throws Exception {
    assertThat(orders().checkpointIdentity())
        .containsExactly(
            Map.entry("source.topics", "topics=[orders]"),
            Map.entry(
                "format.schema",
                "[order_id:string,customer_id:string,event_time:timestamp,amount_cents:long]"),
            Map.entry("transform", "filter(amount_cents > 0); derive(amount=amount_cents / 100.0)"),
            Map.entry("watermark.column", "event_time"),
            Map.entry("deduplicate", "keys=[order_id, event_time]"),
            Map.entry("aggregate.window", "tumbling(event_time, 1 hour)"),
            Map.entry("aggregate.group-by", "[customer_id]"),
            Map.entry("aggregate.measures", "amount_cents=sum(amount_cents), orders=count()"),
            Map.entry("output-mode", "append"));
  }

  @Test
  void checkpointIdentityIgnoresSettingsThatDoNotAffectState() throws Exception {
    PipelineSpec changed =
        orders(
            "delay: 15 minutes",
            "delay: 1 hour",
            "500000",
            "10",
            "processing-time: 30s",
            "available-now: true",
            "128MB",
            "1GB",
            "min-files: 10",
            "min-files: 4");

    assertThat(changed.checkpointIdentity()).isEqualTo(orders().checkpointIdentity());
  }

  @Test
  void checkpointIdentityShowsExactlyWhatChanged() throws Exception {
    Map<String, String> before = orders().checkpointIdentity();
    Map<String, String> after =
        orders(
                "size: 1 hour",
                "size: 1 hour, slide: 30 minutes",
                "group-by: [customer_id]",
                "group-by: [order_id]")
            .checkpointIdentity();

    Map<String, String> changed = new LinkedHashMap<>();
    after.forEach(
        (k, v) -> {
          if (!v.equals(before.get(k))) {
            changed.put(k, v);
          }
        });
    assertThat(changed)
        .containsExactly(
            Map.entry("aggregate.window", "sliding(event_time, 1 hour, 30 minutes)"),
            Map.entry("aggregate.group-by", "[order_id]"));
  }

  @Test
  void aStatefulPipelinesJoinsArePartOfItsCheckpointIdentityAndAStatelessOnesAreNot() {
    String join =
        "  - delta: { path: /dims/c }\n    on: [order_id]\n    type: left\n    columns: [segment]\n";
    String stateful = "deduplicate: { keys: [order_id, segment] }\n";

    assertThat(joinIdentity(join, stateful))
        .isEqualTo("left join /dims/c on [order_id] columns [segment]");
    assertThat(joinIdentity(join.replace("type: left", "type: inner"), stateful))
        .isEqualTo("inner join /dims/c on [order_id] columns [segment]");
    assertThat(joinIdentity(join.replace("/dims/c", "/dims/d"), stateful))
        .isEqualTo("left join /dims/d on [order_id] columns [segment]");
    assertThat(joinIdentity(join.replace("[segment]", "[segment, region]"), stateful))
        .isEqualTo("left join /dims/c on [order_id] columns [segment, region]");
    assertThat(joinIdentity(join.replace("type: left", "type: left\n    max-size: 1GB"), stateful))
        .as("the size limit does not change the state")
        .isEqualTo(joinIdentity(join, stateful));
    assertThat(PipelineValidationTest.parse(JoinSpecTest.withJoin(join)).checkpointIdentity())
        .as("stateless: as without the join")
        .doesNotContainKey("join")
        .isEqualTo(PipelineValidationTest.parse(JoinSpecTest.BASE).checkpointIdentity());
  }

  private static String joinIdentity(String join, String stateful) {
    return PipelineValidationTest.parse(JoinSpecTest.withJoin(join) + stateful)
        .checkpointIdentity()
        .get("join");
  }

  @Test
  void checkpointIdentityMarksAbsentPartsAsNone() {
    PipelineSpec spec = PipelineParser.parse(PipelineParserTest.MINIMAL, "m.yaml", Map.of());

    assertThat(spec.checkpointIdentity())
        .containsEntry("transform", "none")
        .containsEntry("deduplicate", "none")
        .containsEntry("watermark.column", "none")
        .containsEntry("aggregate.window", "none")
        .containsEntry("format.schema", "[id:string,at:timestamp]");
    assertThatThrownBy(() -> spec.checkpointIdentity().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void parsesColumnTypes() {
    assertThat(ColumnType.parse("decimal( 10 , 2 )")).isEqualTo(new ColumnType.Decimal(10, 2));
    assertThat(ColumnType.parse("timestamp")).isEqualTo(ColumnType.Primitive.TIMESTAMP);
    assertThat(ColumnType.parse("decimal(38,0)").canonical()).isEqualTo("decimal(38,0)");
    assertThatThrownBy(() -> ColumnType.parse("decimal(5,6)"))
        .hasMessage(
            "decimal(5,6) is out of range; precision must be 1 to 38 and scale 0 to the precision");
    assertThatThrownBy(() -> ColumnType.parse("varchar"))
        .hasMessage(
            "unknown column type 'varchar'; use string, byte, short, int, long, float, double,"
                + " boolean, timestamp, timestamp(seconds|micros|nanos), timestamp_ntz, date or"
                + " decimal(p,s) like decimal(10,2)");
  }

  @Test
  void parsesTimestampEpochUnits() {
    assertThat(ColumnType.parse("timestamp(seconds)"))
        .isEqualTo(new ColumnType.EpochTimestamp(ColumnType.EpochUnit.SECONDS));
    assertThat(ColumnType.parse("timestamp( micros )").canonical()).isEqualTo("timestamp(micros)");
    assertThat(ColumnType.parse("timestamp(nanos)").isTimestamp()).isTrue();
    assertThat(ColumnType.parse("timestamp(millis)")).isEqualTo(ColumnType.Primitive.TIMESTAMP);
    assertThat(ColumnType.Primitive.TIMESTAMP.isTimestamp()).isTrue();
    assertThat(ColumnType.Primitive.LONG.isTimestamp()).isFalse();
    assertThatThrownBy(() -> ColumnType.parse("timestamp(days)"))
        .hasMessage(
            "unknown epoch unit in column type 'timestamp(days)'; use timestamp(seconds), timestamp(millis)"
                + " (= timestamp), timestamp(micros) or timestamp(nanos)");
  }

  @Test
  void parsesMeasures() {
    assertThat(Measure.parse("count_distinct( customer_id )"))
        .isEqualTo(new Measure(MeasureFunction.COUNT_DISTINCT, Optional.of("customer_id")));
    assertThat(Measure.parse("count(x)").canonical()).isEqualTo("count(x)");
    assertThat(Measure.parse("avg(amount)").function()).isEqualTo(MeasureFunction.AVG);
    assertThatThrownBy(() -> Measure.parse("sum(a, b)"))
        .hasMessage(
            "cannot parse 'sum(a, b)' as a measure; write function(column) like sum(amount) or count()");
    assertThatThrownBy(() -> Measure.parse("max()"))
        .hasMessage("max() needs an input column, like max(amount)");
  }

  @Test
  void parsesStartingOffsets() {
    assertThat(StartingOffsets.parse(" latest ")).isEqualTo(new StartingOffsets.Latest());
    assertThat(StartingOffsets.parse("table")).isEqualTo(new StartingOffsets.FromTable());
    assertThat(new StartingOffsets.FromTable()).hasToString("table");
    assertThat(StartingOffsets.parse("timestamp:2026-03-01T12:00:00Z"))
        .hasToString("timestamp:2026-03-01T12:00:00Z");
    assertThatThrownBy(() -> StartingOffsets.parse("timestamp:yesterday"))
        .hasMessage(
            "cannot parse 'yesterday' as an instant; write it in UTC like timestamp:2026-01-01T00:00:00Z");
  }

  @Test
  void copiesCollectionsDefensivelyAndKeepsDeclarationOrder() {
    Map<String, String> columns = new LinkedHashMap<>();
    columns.put("z", "1");
    columns.put("a", "2");
    TransformStep.Derive derive = new TransformStep.Derive(columns);
    columns.put("m", "3");

    assertThat(derive.columns()).containsExactly(Map.entry("z", "1"), Map.entry("a", "2"));
    assertThatThrownBy(() -> derive.columns().put("q", "4"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void refusesInvalidValuesInConstructors() {
    assertThatThrownBy(
            () -> new WindowSpec.Sliding("t", Duration.ofHours(1), Duration.ofMinutes(25)))
        .hasMessage("window size 1 hour must be a multiple of the slide 25 minutes");
    assertThatThrownBy(() -> new WindowSpec.Tumbling("t", Duration.ZERO))
        .hasMessage("window size must be positive");
    assertThatThrownBy(
            () ->
                new StorageSpec(
                    Optional.empty(), Optional.empty(), false, Optional.of("a"), Optional.empty()))
        .hasMessage("access-key and secret-key must be given together");
    assertThatThrownBy(() -> new TopicSelection.Topics(List.of()))
        .hasMessage("a topic list needs at least one topic");
    assertThatThrownBy(() -> new TransformStep.Filter(" "))
        .hasMessage("a filter expression cannot be empty");
    assertThatThrownBy(() -> new ColumnSpec("a..b", ColumnType.Primitive.INT))
        .hasMessage("column name 'a..b' has an empty path segment");
  }

  @Test
  void derivesTheDefaultQuarantineAsASibling() {
    DeltaSinkSpec sink =
        new DeltaSinkSpec("s3://tables/orders/", List.of(), Size.ofMegabytes(1), Compression.NONE);

    assertThat(DeltaTableSpec.quarantineFor(sink))
        .isEqualTo(new DeltaTableSpec("s3://tables/orders-quarantine"));
  }

  @Test
  void identifiesSecretProperties() {
    assertThat(Secrets.isSecretProperty("ssl.truststore.PASSWORD")).isTrue();
    assertThat(Secrets.isSecretProperty("sasl.jaas.config")).isTrue();
    assertThat(Secrets.isSecretProperty("basic.auth.secret")).isTrue();
    assertThat(Secrets.isSecretProperty("sasl.mechanism")).isFalse();
  }
}
