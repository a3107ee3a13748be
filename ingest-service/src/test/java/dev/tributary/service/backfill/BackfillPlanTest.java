package dev.tributary.service.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.Assignment;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.StartingOffsets;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.pipeline.PipelineFactory;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BackfillPlanTest {
  private static final BackfillRange RANGE =
      BackfillRange.parse("2026-11-01T00:30:00Z", "2026-11-01T03:00:00Z");

  private static PipelineSpec spec(String query, String sink) {
    return spec(query, sink, "group");
  }

  private static PipelineSpec spec(String query, String sink, String assignment) {
    String yaml =
        """
        pipeline: clicks
        source:
          kafka:
            bootstrap-servers: localhost:9092
            topics: [clicks]
            starting-offsets: latest
            assignment: %s
        format:
          json:
            schema: { id: long, kind: string, event_ts: timestamp, amount: long }
        %s
        sink:
          %s
        late-events: { delta: { path: /data/clicks-late } }
        checkpoint: /data/checkpoints/clicks/
        trigger: { processing-time: 10s }
        """
            .formatted(assignment, query, sink);
    return PipelineParser.parse(yaml, "clicks.yaml", Map.of());
  }

  private static final String STATELESS = "watermark: { column: event_ts, delay: 10 minutes }";
  private static final String WINDOWED =
      """
      watermark: { column: event_ts, delay: 10 minutes }
      aggregate:
        window: { column: event_ts, size: 1 hour }
        group-by: [kind]
        measures: { events: count(), amount: sum(amount) }
      output-mode: append""";
  private static final String DELTA = "delta: { path: /data/clicks }";

  @Test
  void derivesADeclarationOfItsOwnThatNeverNamesTheLiveCheckpointOrTables() {
    PipelineSpec live = spec(STATELESS, DELTA);
    BackfillPlan plan = BackfillPlan.into(live, RANGE, "/data/clicks-fixed");
    PipelineSpec spec = plan.spec();

    assertThat(spec.id()).matches("clicks-backfill-[0-9a-f]{8}");
    assertThat(spec.checkpoint()).isEqualTo("/data/checkpoints/clicks-backfill-" + hash(spec));
    assertThat(spec.sinkLocations()).containsExactly("/data/clicks-fixed");
    assertThat(spec.quarantine().path()).isEqualTo("/data/clicks-fixed-quarantine");
    assertThat(spec.lateEvents()).isEmpty();
    assertThat(spec.trigger()).isEqualTo(new TriggerSpec.AvailableNow());
    var kafka = spec.kafkaSource().orElseThrow();
    // from minus the 10-minute delay, read by this process alone (no consumer group)
    assertThat(kafka.startingOffsets())
        .isEqualTo(new StartingOffsets.AtTimestamp(Instant.parse("2026-11-01T00:20:00Z")));
    assertThat(kafka.assignment()).isEqualTo(Assignment.EXCLUSIVE);
    assertThat(spec.checkpointIdentity()).isEqualTo(withoutAssignment(live));
    assertThat(plan.range().readUntil(plan.delay()))
        .isEqualTo(Instant.parse("2026-11-01T03:10:00Z"));
  }

  @Test
  void replaceStagesInsideTheLiveTablesFolderWithAnIdOfTheRangeAndTheQuery() {
    PipelineSpec live = spec(STATELESS, DELTA);
    BackfillPlan plan = BackfillPlan.replace(live, RANGE);
    String hash = hash(plan.spec());

    assertThat(plan.liveTable()).isEqualTo("/data/clicks");
    assertThat(plan.stagingFolder()).isEqualTo("_tributary_backfill/" + hash);
    assertThat(plan.spec().sinkLocations())
        .containsExactly("/data/clicks/_tributary_backfill/" + hash);
    assertThat(plan.spec().quarantine().path())
        .isEqualTo("/data/clicks/_tributary_backfill/" + hash + "-quarantine");
    assertThat(plan.spec().checkpoint()).isEqualTo("/data/checkpoints/clicks-backfill-" + hash);
    // the same command again finds the same run; another range is another run; --into differs
    assertThat(BackfillPlan.replace(live, RANGE).id()).isEqualTo(plan.id());
    assertThat(
            BackfillPlan.replace(
                    live, BackfillRange.parse("2026-11-01T00:30:00Z", "2026-11-01T04:00:00Z"))
                .id())
        .isNotEqualTo(plan.id());
    // the range replaced again after another fix of the query is another backfill: the first
    // one's swap txn must not make it a no-op
    PipelineSpec fixed =
        spec(STATELESS + "\ntransform:\n  - derive: { amount_eur: \"amount / 100\" }", DELTA);
    assertThat(BackfillPlan.replace(fixed, RANGE).id()).isNotEqualTo(plan.id());
    assertThat(BackfillPlan.into(live, RANGE, "/data/clicks-fixed").id()).isNotEqualTo(plan.id());
  }

  @Test
  void theIdDependsOnRangeAndTargetSoThatARerunFindsItsOwnRun() {
    PipelineSpec live = spec(STATELESS, DELTA);
    String a = BackfillPlan.into(live, RANGE, "/data/a").id();
    assertThat(BackfillPlan.into(live, RANGE, "/data/a").id()).isEqualTo(a);
    assertThat(BackfillPlan.into(live, RANGE, "/data/b").id()).isNotEqualTo(a);
    assertThat(
            BackfillPlan.into(
                    live,
                    BackfillRange.parse("2026-11-01T00:30:00Z", "2026-11-01T04:00:00Z"),
                    "/data/a")
                .id())
        .isNotEqualTo(a);
    String longId = "p".repeat(PipelineSpec.MAX_ID_LENGTH);
    assertThat(BackfillPlan.backfillId(longId, "0123abcd"))
        .hasSize(PipelineSpec.MAX_ID_LENGTH)
        .endsWith("-backfill-0123abcd");
  }

  @Test
  void keepsEventRowsByTheirEventTimeAndWindowsInsideTheRange() {
    BackfillPlan stateless = BackfillPlan.into(spec(STATELESS, DELTA), RANGE, "/data/x");
    var output = PipelineFactory.compile(stateless.spec()).outputSchema();
    RowSelector byTime = stateless.selector(output);
    Object[] row = new Object[output.size()];
    int ts = output.indexOf("event_ts");
    row[ts] = Instant.parse("2026-11-01T00:30:00Z");
    assertThat(byTime.keeps(row)).isTrue();
    row[ts] = Instant.parse("2026-11-01T03:00:00Z");
    assertThat(byTime.keeps(row)).isFalse();
    row[ts] = null;
    assertThat(byTime.keeps(row)).isFalse();

    BackfillPlan windowed = BackfillPlan.into(spec(WINDOWED, DELTA), RANGE, "/data/x");
    RowSelector byWindow =
        windowed.selector(PipelineFactory.compile(windowed.spec()).outputSchema());
    Object[] w = new Object[5]; // window_start, window_end, kind, events, amount
    w[0] = Instant.parse("2026-11-01T00:00:00Z");
    w[1] = Instant.parse("2026-11-01T01:00:00Z");
    assertThat(byWindow.keeps(w)).isFalse();
    w[0] = Instant.parse("2026-11-01T02:00:00Z");
    w[1] = Instant.parse("2026-11-01T03:00:00Z");
    assertThat(byWindow.keeps(w)).isTrue();
    assertThat(windowed.edges())
        .singleElement()
        .satisfies(e -> assertThat(e.start()).isEqualTo(Instant.parse("2026-11-01T00:00:00Z")));
  }

  @Test
  void refusesWhatItCannotRecomputeSayingWhy() {
    assertRefused(spec("", DELTA), "declares no event-time column", 2);
    assertRefused(
        spec(
            """
            watermark: { column: event_ts, delay: 1 minute }
            aggregate:
              group-by: [kind]
              measures: { events: count() }
            output-mode: update""",
            DELTA,
            "exclusive"),
        "aggregates without a window",
        2);
    assertRefused(
        spec(
            """
            watermark: { column: event_ts, delay: 1 minute }
            aggregate:
              window: { column: event_ts, session-gap: 5 minutes }
              measures: { events: count() }
            output-mode: append""",
            DELTA),
        "session windows",
        2);
    assertRefused(
        spec("", "delta: { path: /data/clicks, write: upsert, key: [id] }", "exclusive"),
        "upserts by key",
        2);
  }

  @Test
  void readsADeltaSourceTableWholeAsOfTheStart() {
    PipelineSpec live =
        PipelineParser.parse(
            """
            pipeline: gold
            source:
              delta: { path: /data/silver, starting-version: latest }
            watermark: { column: event_ts, delay: 10 minutes }
            sink:
              delta: { path: /data/gold }
            checkpoint: /data/checkpoints/gold
            """,
            "gold.yaml",
            Map.of());
    PipelineSpec spec = BackfillPlan.into(live, RANGE, "/data/gold-fixed").spec();
    assertThat(spec.deltaSource().orElseThrow().path()).isEqualTo("/data/silver");
    assertThat(spec.deltaSource().get().startingVersion())
        .isEqualTo(new dev.tributary.config.StartingVersion.Earliest());
    assertThat(spec.sinkLocations()).containsExactly("/data/gold-fixed");
  }

  @Test
  void refusesTheLiveTableAsTarget() {
    assertThatThrownBy(() -> BackfillPlan.into(spec(STATELESS, DELTA), RANGE, "/data/clicks/"))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessageContaining("Cannot backfill pipeline clicks into /data/clicks/")
        .hasMessageContaining("the live pipeline's own table");
    assertThatThrownBy(
            () ->
                BackfillPlan.into(
                    spec(STATELESS, DELTA), RANGE, "/data/clicks/_tributary_backfill/mine"))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessage(
            "Cannot backfill pipeline clicks into /data/clicks/_tributary_backfill/mine: it lies"
                + " inside the live table /data/clicks, whose vacuum would take its files for"
                + " orphans; give --into a path beside the live table (--replace is the way to"
                + " rewrite the live table's range).");
  }

  private static void assertRefused(PipelineSpec live, String why, int exitCode) {
    assertThatThrownBy(() -> BackfillPlan.into(live, RANGE, "/data/x"))
        .isInstanceOf(BackfillRefusal.class)
        .hasMessageContaining("Cannot backfill pipeline clicks")
        .hasMessageContaining(why)
        .satisfies(e -> assertThat(((BackfillRefusal) e).exitCode()).isEqualTo(exitCode));
  }

  private static String hash(PipelineSpec spec) {
    return spec.id().substring(spec.id().lastIndexOf('-') + 1);
  }

  private static Map<String, String> withoutAssignment(PipelineSpec live) {
    var identity = new java.util.LinkedHashMap<>(live.checkpointIdentity());
    identity.remove("source.assignment");
    return identity;
  }
}
