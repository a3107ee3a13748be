package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.avro.AvroRecordDecoder;
import dev.tributary.service.parse.protobuf.ProtobufWireDecoder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each declared format builds its decoder; the row schema is the declared columns, value then key.
 */
class RecordDecodersTest {
  private static final String PIPELINE =
      """
      pipeline: formats
      source: { kafka: { bootstrap-servers: "127.0.0.1:9092", topics: [orders] } }
      format:
      %s
      sink: { delta: { path: /tmp/formats/table } }
      checkpoint: /tmp/formats/checkpoint
      """;

  private static PipelineSpec spec(String format) {
    return PipelineParser.parse(
        PIPELINE.formatted(format.indent(2).stripTrailing()), "formats.yaml", Map.of());
  }

  @Test
  void buildsTheJsonParserForFormatJson() {
    CompiledPipeline compiled = PipelineFactory.compile(spec("json: { schema: { id: long } }"));

    assertThat(compiled.parser()).isInstanceOf(JsonRecordParser.class);
  }

  @Test
  void buildsTheAvroDecoderWithTheKeyColumnsAfterTheValueColumns() {
    CompiledPipeline compiled =
        PipelineFactory.compile(
            spec(
                """
        avro:
          registry: { url: "http://127.0.0.1:8081" }
          schema: { id: long, customer.name: string }
          key: { customer_id: string }"""));

    assertThat(compiled.parser()).isInstanceOf(AvroRecordDecoder.class);
    assertThat(compiled.outputSchema().fieldNames())
        .containsExactly(
            "id",
            "customer",
            "customer_id",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp");
  }

  @Test
  void buildsTheProtobufDecoderWithTheKeyColumnsAfterTheValueColumns() {
    CompiledPipeline compiled =
        PipelineFactory.compile(
            spec(
                """
        protobuf:
          message: shop.Order
          registry: { url: "http://127.0.0.1:8081" }
          schema: { id: long, customer.name: string }
          key: { customer_id: string }"""));

    assertThat(compiled.parser()).isInstanceOf(ProtobufWireDecoder.class);
    assertThat(compiled.outputSchema().fieldNames())
        .containsExactly(
            "id",
            "customer",
            "customer_id",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp");
  }
}
