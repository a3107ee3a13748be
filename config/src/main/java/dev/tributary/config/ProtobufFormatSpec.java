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
 * @param selection {@link ColumnSelection#DECLARED} (the columns above), or {@link
 *     ColumnSelection#ALL} ({@code columns: all}: every field of each record's writer message; the
 *     value and key columns are then empty, and {@code message} is empty when not declared: the
 *     record's message indexes name its message)
 */
public record ProtobufFormatSpec(
    String message,
    RegistrySpec registry,
    List<ColumnSpec> valueColumns,
    List<ColumnSpec> keyColumns,
    Size maxRecordSize,
    ColumnSelection selection)
    implements FormatSpec {

  /** Copies the columns and checks there is at least one value column unless all are taken. */
  public ProtobufFormatSpec {
    Objects.requireNonNull(message, "message");
    valueColumns = List.copyOf(valueColumns);
    keyColumns = List.copyOf(keyColumns);
    Objects.requireNonNull(selection, "selection");
    RegistryFormats.check(
        registry,
        valueColumns,
        keyColumns,
        selection,
        maxRecordSize,
        "a Protobuf schema needs at least one column");
  }

  /** A format of declared columns. */
  public ProtobufFormatSpec(
      String message,
      RegistrySpec registry,
      List<ColumnSpec> valueColumns,
      List<ColumnSpec> keyColumns,
      Size maxRecordSize) {
    this(message, registry, valueColumns, keyColumns, maxRecordSize, ColumnSelection.DECLARED);
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
