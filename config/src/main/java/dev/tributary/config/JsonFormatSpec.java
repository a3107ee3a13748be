package dev.tributary.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@code format.json} section: record values are JSON objects decoded with a declared schema.
 *
 * @param schema the declared columns in declaration order, at least one: the row's columns (with
 *     {@code envelope: debezium}, the columns of the event's {@code after} or {@code before})
 * @param maxRecordSize records with a larger value go to quarantine instead of being parsed
 *     (default 1MB)
 * @param envelope what wraps the row in a value ({@link EnvelopeSpec#NONE}: nothing)
 */
public record JsonFormatSpec(List<ColumnSpec> schema, Size maxRecordSize, EnvelopeSpec envelope)
    implements FormatSpec {

  /** The default of {@code max-record-size}. */
  public static final Size DEFAULT_MAX_RECORD_SIZE = Size.ofMegabytes(1);

  /** Copies the columns and checks there is at least one. */
  public JsonFormatSpec {
    schema = List.copyOf(schema);
    Objects.requireNonNull(maxRecordSize, "maxRecordSize");
    Objects.requireNonNull(envelope, "envelope");
    if (schema.isEmpty()) {
      throw new IllegalArgumentException("a JSON schema needs at least one column");
    }
  }

  /** A format whose values are the rows themselves (no envelope). */
  public JsonFormatSpec(List<ColumnSpec> schema, Size maxRecordSize) {
    this(schema, maxRecordSize, EnvelopeSpec.NONE);
  }

  /** The declared columns, then the envelope's ({@code _op, _source_ts} with Debezium). */
  @Override
  public List<ColumnSpec> columns() {
    List<ColumnSpec> all = new ArrayList<>(schema);
    all.addAll(envelope.columns());
    return List.copyOf(all);
  }

  @Override
  public String keyword() {
    return "json";
  }
}
