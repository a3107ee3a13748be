package dev.tributary.table.data;

import dev.tributary.table.types.DataType;
import java.util.Map;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Writes the values of one field (a top-level column or a nested struct field) to Parquet and keeps
 * that field's statistics as it goes, so statistics cost one comparison per value and no second
 * pass. One instance per field per file.
 */
abstract class FieldWriter {
  final String name;

  /** Dotted path from the root, for error messages. */
  final String path;

  final DataType type;

  /** Position of the field in its Parquet group (partition columns are not in the file). */
  final int fieldIndex;

  /** Position of the value in the row or struct array it is read from. */
  final int valueIndex;

  final boolean required;
  long nullCount;

  FieldWriter(
      String name, String path, DataType type, int fieldIndex, int valueIndex, boolean required) {
    this.name = name;
    this.path = path;
    this.type = type;
    this.fieldIndex = fieldIndex;
    this.valueIndex = valueIndex;
    this.required = required;
  }

  /**
   * Writes the given fields of one record or struct. A failure leaves the record half-written, so
   * the caller must treat the file as failed.
   */
  static void writeFields(RecordConsumer consumer, FieldWriter[] fields, Object[] values) {
    for (FieldWriter field : fields) {
      Object value = values[field.valueIndex];
      if (value == null) {
        if (field.required) {
          throw new IllegalArgumentException(DataErrors.nullInRequired(field.path));
        }
        field.countNull();
        continue;
      }
      consumer.startField(field.name, field.fieldIndex);
      try {
        field.write(consumer, value);
      } catch (ClassCastException e) {
        throw new IllegalArgumentException(DataErrors.wrongClass(field.path, field.type, value), e);
      } catch (ArithmeticException e) {
        // e.g. a timestamp whose microseconds overflow a long: name the field, not just "overflow"
        throw new IllegalArgumentException(
            DataErrors.valueDoesNotFit(field.path, field.type, value, e), e);
      }
      consumer.endField(field.name, field.fieldIndex);
    }
  }

  /** Writes one non-null value and updates min/max. */
  abstract void write(RecordConsumer consumer, Object value);

  /** Counts a null of this field (for a struct: of every nested field). */
  void countNull() {
    nullCount++;
  }

  /** Smallest value written, typed as in DataType, or null if there is no usable minimum. */
  Object minValue() {
    return null;
  }

  /** Largest value written (or a valid upper bound of it), or null if there is none. */
  Object maxValue() {
    return null;
  }

  /** Adds this field's statistics to the (possibly nested) maps of its parent. */
  void addStats(Map<String, Object> min, Map<String, Object> max, Map<String, Object> nulls) {
    nulls.put(name, nullCount);
    Object lo = minValue();
    if (lo != null) {
      min.put(name, lo);
    }
    Object hi = maxValue();
    if (hi != null) {
      max.put(name, hi);
    }
  }
}
