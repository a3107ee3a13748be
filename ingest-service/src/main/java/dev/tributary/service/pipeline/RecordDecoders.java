package dev.tributary.service.pipeline;

import dev.tributary.config.AvroFormatSpec;
import dev.tributary.config.ColumnSpec;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.JsonFormatSpec;
import dev.tributary.config.ProtobufFormatSpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.parse.avro.AvroRecordDecoder;
import dev.tributary.service.parse.avro.WriterSchemaDecoder;
import dev.tributary.service.parse.debezium.DebeziumDecoder;
import dev.tributary.service.parse.protobuf.ProtobufWireDecoder;
import dev.tributary.service.parse.protobuf.ProtobufWriterSchemaDecoder;
import dev.tributary.service.registry.SchemaRegistryClient;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Builds the {@link RecordDecoder} of a declared {@code format}: the one place that knows every
 * format. A new format adds its case here.
 */
public final class RecordDecoders {
  private RecordDecoders() {}

  /**
   * The decoder of {@code format}.
   *
   * @throws IllegalArgumentException naming the key, for a column the format cannot produce or a
   *     format this build cannot decode
   */
  public static RecordDecoder forFormat(String pipelineId, FormatSpec format, Secrets secrets) {
    String at = "format." + format.keyword();
    try {
      if (format instanceof JsonFormatSpec json && json.envelope().isDebezium()) {
        return DebeziumDecoder.json(
            pipelineId,
            types(json.schema()),
            json.maxRecordSize().bytes(),
            json.envelope().onTruncate());
      }
      if (format instanceof JsonFormatSpec json) {
        return JsonRecordParser.forColumns(types(json.schema()), json.maxRecordSize().bytes());
      }
      if (format instanceof AvroFormatSpec avro) {
        SchemaRegistryClient registry =
            new SchemaRegistryClient(
                pipelineId, avro.registry(), secrets, SchemaRegistryClient.DEFAULT_RETRY);
        if (avro.takesAllColumns()) {
          return new WriterSchemaDecoder(
              pipelineId, registry::schemaById, avro.maxRecordSize().bytes(), avro.envelope());
        }
        if (avro.envelope().isDebezium()) {
          return DebeziumDecoder.avro(
              pipelineId,
              registry::schemaById,
              types(avro.valueColumns()),
              types(avro.keyColumns()),
              avro.maxRecordSize().bytes(),
              avro.envelope().onTruncate());
        }
        return new AvroRecordDecoder(
            registry::schemaById,
            types(avro.valueColumns()),
            types(avro.keyColumns()),
            avro.maxRecordSize().bytes());
      }
      if (format instanceof ProtobufFormatSpec proto) {
        SchemaRegistryClient registry =
            new SchemaRegistryClient(
                pipelineId, proto.registry(), secrets, SchemaRegistryClient.DEFAULT_RETRY);
        if (proto.takesAllColumns()) {
          return new ProtobufWriterSchemaDecoder(
              pipelineId, registry::schemaById, proto.message(), proto.maxRecordSize().bytes());
        }
        return new ProtobufWireDecoder(
            registry::schemaById,
            proto.message(),
            types(proto.valueColumns()),
            types(proto.keyColumns()),
            proto.maxRecordSize().bytes());
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
    }
    throw new IllegalStateException("unknown format " + format.keyword());
  }

  private static LinkedHashMap<String, String> types(List<ColumnSpec> columns) {
    LinkedHashMap<String, String> types = new LinkedHashMap<>();
    columns.forEach(c -> types.put(c.name(), c.type().canonical()));
    return types;
  }
}
