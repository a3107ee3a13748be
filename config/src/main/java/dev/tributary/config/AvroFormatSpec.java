package dev.tributary.config;

import java.util.List;

/**
 * The {@code format.avro} section: record values (and optionally keys) are Avro in the Confluent
 * wire format (magic byte 0, a 4-byte schema id, the Avro binary body), whose writer schemas are
 * fetched from the registry. The declared columns are a projection of the writer schema, read with
 * Avro's schema resolution rules (docs/FORMATS.md).
 *
 * @param registry where writer schemas are looked up by id
 * @param valueColumns the value's columns ({@code schema}), at least one
 * @param keyColumns the key's columns ({@code key}); empty when the key is not decoded
 * @param maxRecordSize records with a larger value go to quarantine instead of being decoded
 */
public record AvroFormatSpec(
    RegistrySpec registry,
    List<ColumnSpec> valueColumns,
    List<ColumnSpec> keyColumns,
    Size maxRecordSize)
    implements FormatSpec {

  /** Copies the columns and checks there is at least one value column. */
  public AvroFormatSpec {
    valueColumns = List.copyOf(valueColumns);
    keyColumns = List.copyOf(keyColumns);
    RegistryFormats.check(
        registry, valueColumns, maxRecordSize, "an Avro schema needs at least one column");
  }

  /** The value's columns, then the key's. */
  @Override
  public List<ColumnSpec> columns() {
    return RegistryFormats.valueThenKey(valueColumns, keyColumns);
  }

  @Override
  public String keyword() {
    return "avro";
  }
}
