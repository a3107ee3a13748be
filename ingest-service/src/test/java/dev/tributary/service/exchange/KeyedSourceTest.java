package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** When keyed-by skips the exchange, and the reason it gives when it does not. */
class KeyedSourceTest {

  private static PipelineSpec spec(String keyedBy, String dedupKeys, String groupBy) {
    return PipelineParser.parse(
        """
        pipeline: clicks
        source:
          kafka:
            bootstrap-servers: localhost:9092
            topics: [clicks]
            assignment: group
            keyed-by: %s
        format:
          json:
            schema: { event_id: string, user_id: string, region: string, ts: timestamp, score: double }
        watermark: { column: ts, delay: 10 minutes }
        deduplicate: { keys: %s }
        aggregate:
          window: { column: ts, size: 5 minutes }
          group-by: %s
          measures: { n: count() }
        output-mode: append
        sink:
          delta: { path: /t/clicks }
        checkpoint: /c/clicks
        """
            .formatted(keyedBy, dedupKeys, groupBy),
        "clicks.yaml",
        Map.of());
  }

  @Test
  void skipsTheExchangeWhenEveryStateKeyContainsTheKeyedByColumns() {
    KeyedSource keyed =
        KeyedSource.of(
            spec("[user_id]", "[event_id, user_id]", "[user_id, region]"), Optional.empty());
    assertThat(keyed.skipsExchange()).isTrue();
    assertThat(keyed.describe())
        .startsWith("none: the source is keyed by [user_id] (checked on every record)");
  }

  @Test
  void keepsTheExchangeAndSaysWhyWhenAStateKeyLacksAColumn() {
    KeyedSource keyed =
        KeyedSource.of(spec("[user_id]", "[event_id]", "[region]"), Optional.empty());
    assertThat(keyed.skipsExchange()).isFalse();
    assertThat(keyed.reason())
        .hasValue(
            "keyed-by [user_id] is not used and the repartition topic is kept: the deduplication"
                + " keys [event_id] do not contain them; the group-by columns [region] do not"
                + " contain them");
  }

  @Test
  void keepsTheExchangeForAColumnWhoseTextIsAmbiguous() {
    StructType input =
        StructType.of(
            StructField.nullable("user_id", PrimitiveType.STRING),
            StructField.nullable("score", PrimitiveType.DOUBLE));
    KeyedSource keyed =
        KeyedSource.of(spec("[score]", "[event_id, score]", "[score]"), Optional.of(input));
    assertThat(keyed.skipsExchange()).isFalse();
    assertThat(keyed.reason().orElseThrow())
        .contains("'score' is double (keyed-by columns are strings, integral numbers or booleans)");
  }
}
