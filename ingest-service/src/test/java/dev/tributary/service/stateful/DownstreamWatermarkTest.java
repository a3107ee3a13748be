package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The watermark of the operators after a stream-stream join (rule D1): {@code max(0,
 * min(stateWM(left), stateWM(right), W))} over the defined state watermarks, as Spark's {@code
 * StreamingSymmetricHashJoinExec.produceOutputWatermark} and {@code PropagateWatermarkSimulator}.
 */
class DownstreamWatermarkTest {
  private static final long MS = 1_000L;
  private static final long MINUTE = 60_000_000L;
  private static final long HOUR = 60 * MINUTE;

  private static String seed(String time, String rightWatermark) {
    return """
        pipeline: attribution
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [clicks] } }
        format: { json: { schema: { user_id: string, event_ts: timestamp } } }
        join:
          - stream:
              source: { kafka: { topics: [purchases] } }
              format: { json: { schema: { user_id: string, event_ts: timestamp } } }
              %s
              prefix: p_
            on: [user_id]
            time: "%s"
            type: inner
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          group-by: [user_id]
          measures: { n: count() }
        sink: { delta: { path: /tmp/sink } }
        checkpoint: /tmp/checkpoint
        """
        .formatted(rightWatermark, time);
  }

  private static DownstreamWatermark of(String yaml) {
    CompiledPipeline compiled =
        PipelineFactory.compile(PipelineParser.parse(yaml, "attribution.yaml", Map.of()));
    return DownstreamWatermark.of(compiled.streamJoin().orElseThrow().definition());
  }

  /** The seed: left keeps {@code W − 30 min − 1 ms}, right {@code W − 1 ms}; the left's is less. */
  @Test
  void theSeedJoinOutputsItsLeftStateWatermark() {
    DownstreamWatermark d1 =
        of(
            seed(
                "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES",
                "watermark: { column: event_ts, delay: 10 minutes }"));
    long w = 1_764_547_200_000_000L + 2 * HOUR + 123; // not a whole millisecond
    // Spark computes in milliseconds: W is cut to 1764547207200000 ms first
    assertThat(d1.micros(w)).isEqualTo(w - 123 - 30 * MINUTE - MS);
  }

  /** Spark's S10 numbers: bounds of one hour either way, global 01:00:20 gives 00:00:20 − 1 ms. */
  @Test
  void sparksExampleOfAnAggregationAfterAJoin() {
    DownstreamWatermark d1 =
        of(
            seed(
                "p_event_ts BETWEEN event_ts - INTERVAL 1 HOUR AND event_ts + INTERVAL 1 HOUR",
                "watermark: { column: event_ts, delay: 10 minutes }"));
    long w = HOUR + 20_000_000L;
    assertThat(d1.micros(w)).isEqualTo(20_000_000L - MS);
  }

  /** Before the first watermark (0) and while the formula is negative, the operators get 0. */
  @Test
  void neverBelowZero() {
    DownstreamWatermark d1 =
        of(
            seed(
                "p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES",
                "watermark: { column: event_ts, delay: 10 minutes }"));
    assertThat(d1.micros(0)).isZero();
    assertThat(d1.micros(20 * MINUTE)).isZero();
    assertThat(d1.micros(30 * MINUTE + MS)).isZero();
    assertThat(d1.micros(30 * MINUTE + 2 * MS)).isEqualTo(MS);
  }

  /**
   * A side without a state watermark is left out of the minimum; with none, the operators see W. A
   * state watermark above W (a condition keeping the other side's rows "ahead") leaves W.
   */
  @Test
  void undefinedSidesAreLeftOutAndWBoundsTheMinimum() {
    DownstreamWatermark none =
        new DownstreamWatermark(StreamJoinDefinition.Side.NEVER, StreamJoinDefinition.Side.NEVER);
    assertThat(none.micros(5 * HOUR)).isEqualTo(5 * HOUR);
    DownstreamWatermark rightOnly =
        new DownstreamWatermark(
            StreamJoinDefinition.Side.NEVER, w -> OptionalLong.of(w - 10 * MINUTE));
    assertThat(rightOnly.micros(5 * HOUR)).isEqualTo(5 * HOUR - 10 * MINUTE);
    DownstreamWatermark ahead =
        new DownstreamWatermark(w -> OptionalLong.of(w + HOUR), w -> OptionalLong.of(w + 2 * HOUR));
    assertThat(ahead.micros(5 * HOUR)).isEqualTo(5 * HOUR);
  }

  /** The right without a watermark: neither side evicts (no bound from the other's), so W. */
  @Test
  void aJoinWithoutStateWatermarksOutputsTheGlobalOne() {
    String yaml =
        seed("p_event_ts BETWEEN event_ts AND event_ts + INTERVAL 30 MINUTES", "")
            .replace(
                "aggregate:\n  window: { column: event_ts, size: 5 minutes }\n"
                    + "  group-by: [user_id]\n  measures: { n: count() }\n",
                "deduplicate: { keys: [user_id, event_ts] }\n");
    assertThat(of(yaml).micros(3 * HOUR)).isEqualTo(3 * HOUR);
  }
}
