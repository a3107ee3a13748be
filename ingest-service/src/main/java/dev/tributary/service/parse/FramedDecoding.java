package dev.tributary.service.parse;

import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;

/**
 * The skeleton the Confluent-framed decoders ({@code format.avro}, {@code format.protobuf}) share,
 * so that each reads as format-specific code only: the max-record-size check, the row's columns
 * (the value's, then the key's), the per-record checks before any decoding (tombstone, size), the
 * failure naming the record and its part, and the joining of the value and key rows.
 *
 * <p>Static and allocation-free beyond the row it builds: this is the hot path.
 */
public final class FramedDecoding {
  private FramedDecoding() {}

  /**
   * {@code maxRecordBytes}, checked.
   *
   * @throws IllegalArgumentException if it is not positive
   */
  public static long checkedMaxRecordBytes(long maxRecordBytes) {
    if (maxRecordBytes <= 0) {
      throw new IllegalArgumentException(WireErrors.maxRecordSizeNotPositive(maxRecordBytes));
    }
    return maxRecordBytes;
  }

  /** The row's columns: the value's, then the key's ({@code key} null: not decoded). */
  public static StructType rowSchema(StructType value, StructType key) {
    List<StructField> fields = new ArrayList<>(value.fields());
    if (key != null) {
      fields.addAll(key.fields());
    }
    return new StructType(fields);
  }

  /**
   * Why the record is quarantined before its value is decoded (a tombstone, or above
   * max-record-size), or null to decode it.
   */
  public static ParseResult precheck(
      String topic, int partition, long offset, byte[] valueBytes, long maxRecordBytes) {
    if (valueBytes == null) {
      return failure(topic, partition, offset, "value", WireErrors.tombstone());
    }
    if (valueBytes.length > maxRecordBytes) {
      return failure(
          topic,
          partition,
          offset,
          "value",
          WireErrors.tooLarge(valueBytes.length, maxRecordBytes));
    }
    return null;
  }

  /**
   * A failure of the record's {@code part} ({@code value} or {@code key}), prefixed with where it
   * is.
   */
  public static ParseResult failure(
      String topic, int partition, long offset, String part, String problem) {
    return ParseResult.failure(WireErrors.where(topic, partition, offset, part) + problem);
  }

  /** The value's row followed by the key's. */
  public static Object[] join(Object[] valueRow, Object[] keyRow) {
    Object[] row = new Object[valueRow.length + keyRow.length];
    System.arraycopy(valueRow, 0, row, 0, valueRow.length);
    System.arraycopy(keyRow, 0, row, valueRow.length, keyRow.length);
    return row;
  }
}
