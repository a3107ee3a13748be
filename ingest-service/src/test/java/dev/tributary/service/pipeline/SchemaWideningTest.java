package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which recorded-to-declared {@code format.schema} changes a stateless pipeline's checkpoint
 * accepts.
 */
class SchemaWideningTest {
  @Test
  void declaredWideningsAreAccepted() {
    assertThat(SchemaWidening.widens("[id:string,amount:int]", "[id:string,amount:long]")).isTrue();
    assertThat(SchemaWidening.widens("[id:string,amount:int]", "[id:string,amount:double]"))
        .isTrue();
    assertThat(
            SchemaWidening.widens("[p:decimal(10,2),q:int]", "[p:decimal(12,3),q:decimal(10,0)]"))
        .isTrue();
    assertThat(SchemaWidening.widens("[n:long]", "[n:decimal(20,0)]")).isTrue();
  }

  @Test
  void everythingElseIsRefused() {
    assertThat(SchemaWidening.widens("[id:string,amount:long]", "[id:string,amount:int]"))
        .isFalse();
    assertThat(SchemaWidening.widens("[amount:long]", "[amount:double]")).isFalse();
    assertThat(SchemaWidening.widens("[p:decimal(10,2)]", "[p:decimal(11,3)]")).isTrue();
    assertThat(SchemaWidening.widens("[p:decimal(10,2)]", "[p:decimal(11,4)]")).isFalse();
    assertThat(
            SchemaWidening.widens("[id:string,amount:int]", "[id:string,amount:int,tier:string]"))
        .isFalse();
    assertThat(SchemaWidening.widens("[id:string,amount:int]", "[amount:long,id:string]"))
        .isFalse();
    assertThat(SchemaWidening.widens("[id:string,amount:int]", "[id:string,total:long]")).isFalse();
    assertThat(SchemaWidening.widens("[d:date]", "[d:timestamp]")).isFalse();
    assertThat(SchemaWidening.widens("the source table's", "[a:long]")).isFalse();
    assertThat(SchemaWidening.widens(null, "[a:long]")).isFalse();
  }

  private static PipelineSpec spec(String stateful) {
    return PipelineParser.parse(
        """
        pipeline: p
        source: { kafka: { bootstrap-servers: "127.0.0.1:9092", topics: [t] } }
        format: { json: { schema: { event_id: string, event_ts: timestamp, amount: int } } }
        %s
        sink: { delta: { path: /tmp/w/t } }
        checkpoint: /tmp/w/c
        """
            .formatted(stateful),
        "p.yaml",
        Map.of());
  }

  @Test
  void onlyAStatelessPipelineAcceptsAWidenedSchema() {
    String from = "[event_id:string,event_ts:timestamp,amount:int]";
    String to = "[event_id:string,event_ts:timestamp,amount:long]";
    assertThat(SchemaWidening.judge(spec("")).compatible("format.schema", from, to)).isTrue();
    assertThat(SchemaWidening.judge(spec("")).compatible("transform", "none", "x")).isFalse();
    PipelineSpec stateful =
        spec(
            "watermark: { column: event_ts, delay: 10 minutes }\n"
                + "deduplicate: { keys: [event_id], within-watermark: true }");
    assertThat(SchemaWidening.judge(stateful).compatible("format.schema", from, to)).isFalse();
  }
}
