package dev.tributary.config;

import java.util.List;
import java.util.Optional;

/**
 * How record values (and keys) are decoded: the {@code format} section, which holds exactly one of
 * {@code json}, {@code avro} or {@code protobuf}. Every format declares the columns it produces;
 * the service builds one record decoder per pipeline from it.
 */
public sealed interface FormatSpec permits JsonFormatSpec, AvroFormatSpec, ProtobufFormatSpec {

  /**
   * Every column a decoded record yields, in row order: the value's declared columns, then, for a
   * format that decodes the key, the key's declared columns, then the envelope's ({@link
   * EnvelopeSpec#columns}).
   */
  List<ColumnSpec> columns();

  /** Records with a larger value go to quarantine instead of being decoded. */
  Size maxRecordSize();

  /** The section's name under {@code format}: {@code json}, {@code avro} or {@code protobuf}. */
  String keyword();

  /**
   * What wraps the row in a record value: {@link EnvelopeSpec#NONE} unless the format declares
   * {@code envelope}.
   */
  default EnvelopeSpec envelope() {
    return EnvelopeSpec.NONE;
  }

  /**
   * Where the columns come from: declared ({@code schema}), or every field of each record's writer
   * schema ({@code columns: all}, Avro and Protobuf); then {@link #columns} holds only the
   * envelope's.
   */
  default ColumnSelection selection() {
    return ColumnSelection.DECLARED;
  }

  /** Whether each record's writer schema gives its columns ({@code columns: all}). */
  default boolean takesAllColumns() {
    return selection() == ColumnSelection.ALL;
  }

  /** Returns the declared column with this name (as written, e.g. {@code customer.id}), if any. */
  default Optional<ColumnSpec> column(String name) {
    return columns().stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
