package dev.tributary.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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
 * @param envelope what wraps the row in a value ({@link EnvelopeSpec#NONE}: nothing; with {@code
 *     debezium}, {@code valueColumns} are the fields of the event's {@code after} or {@code before}
 *     record)
 * @param selection {@link ColumnSelection#DECLARED} (the columns above), or {@link
 *     ColumnSelection#ALL} ({@code columns: all}: every field of each record's writer schema; the
 *     value and key columns are then empty)
 */
public record AvroFormatSpec(
    RegistrySpec registry,
    List<ColumnSpec> valueColumns,
    List<ColumnSpec> keyColumns,
    Size maxRecordSize,
    EnvelopeSpec envelope,
    ColumnSelection selection)
    implements FormatSpec {

  /** Copies the columns and checks there is at least one value column unless all are taken. */
  public AvroFormatSpec {
    valueColumns = List.copyOf(valueColumns);
    keyColumns = List.copyOf(keyColumns);
    Objects.requireNonNull(selection, "selection");
    RegistryFormats.check(
        registry,
        valueColumns,
        keyColumns,
        selection,
        maxRecordSize,
        "an Avro schema needs at least one column");
    Objects.requireNonNull(envelope, "envelope");
  }

  /** A format of declared columns. */
  public AvroFormatSpec(
      RegistrySpec registry,
      List<ColumnSpec> valueColumns,
      List<ColumnSpec> keyColumns,
      Size maxRecordSize,
      EnvelopeSpec envelope) {
    this(registry, valueColumns, keyColumns, maxRecordSize, envelope, ColumnSelection.DECLARED);
  }

  /** {@code columns: all}: every field of each record's writer schema. */
  public static AvroFormatSpec allColumns(
      RegistrySpec registry, Size maxRecordSize, EnvelopeSpec envelope) {
    return new AvroFormatSpec(
        registry, List.of(), List.of(), maxRecordSize, envelope, ColumnSelection.ALL);
  }

  /** A format whose values are the rows themselves (no envelope). */
  public AvroFormatSpec(
      RegistrySpec registry,
      List<ColumnSpec> valueColumns,
      List<ColumnSpec> keyColumns,
      Size maxRecordSize) {
    this(registry, valueColumns, keyColumns, maxRecordSize, EnvelopeSpec.NONE);
  }

  /** The value's columns, then the key's, then the envelope's ({@code _op, _source_ts}). */
  @Override
  public List<ColumnSpec> columns() {
    List<ColumnSpec> all = new ArrayList<>(RegistryFormats.valueThenKey(valueColumns, keyColumns));
    all.addAll(envelope.columns());
    return List.copyOf(all);
  }

  @Override
  public String keyword() {
    return "avro";
  }
}
