package dev.tributary.config;

import java.util.List;
import java.util.Objects;

/**
 * The {@code format.protobuf} section: record values (and optionally keys) are Protobuf in the
 * Confluent wire format (magic byte 0, a 4-byte schema id, the message indexes, the message), whose
 * writer schemas are fetched from the registry.
 *
 * @param message the fully qualified name of the value's message type ({@code com.example.Order})
 * @param registry where writer schemas are looked up by id
 * @param valueColumns the value's columns ({@code schema}), at least one
 * @param keyColumns the key's columns ({@code key}); empty when the key is not decoded
 * @param maxRecordSize records with a larger value go to quarantine instead of being decoded
 */
public record ProtobufFormatSpec(
    String message,
    RegistrySpec registry,
    List<ColumnSpec> valueColumns,
    List<ColumnSpec> keyColumns,
    Size maxRecordSize)
    implements FormatSpec {

  /** Copies the columns and checks there is at least one value column. */
  public ProtobufFormatSpec {
    Objects.requireNonNull(message, "message");
    valueColumns = List.copyOf(valueColumns);
    keyColumns = List.copyOf(keyColumns);
    RegistryFormats.check(
        registry, valueColumns, maxRecordSize, "a Protobuf schema needs at least one column");
  }

  /** The value's columns, then the key's. */
  @Override
  public List<ColumnSpec> columns() {
    return RegistryFormats.valueThenKey(valueColumns, keyColumns);
  }

  @Override
  public String keyword() {
    return "protobuf";
  }
}
