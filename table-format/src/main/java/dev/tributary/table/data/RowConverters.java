package dev.tributary.table.data;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * Parquet converters that assemble rows as {@code Object[]} of the table schema, the inverse of the
 * field writers. Each converter checks on creation that the file stores its column in the physical
 * type our writer uses for the table type, so a foreign file fails with a clear message instead of
 * producing wrong values.
 */
final class RowConverters {
  private RowConverters() {}

  /** A struct (or the whole row): fills {@link #current} from its field converters. */
  static final class StructConverter extends GroupConverter {
    private final Converter[] converters;
    private final Object[] template;
    private final StructConverter parent;
    private final int indexInParent;
    Object[] current;

    /**
     * @param requested the Parquet group to read (a projection of the file's group)
     * @param type the table type whose arrays are produced
     * @param template initial contents of every produced array (partition values for a row)
     */
    StructConverter(
        String key,
        String path,
        GroupType requested,
        StructType type,
        Object[] template,
        StructConverter parent,
        int indexInParent) {
      this.template = template;
      this.parent = parent;
      this.indexInParent = indexInParent;
      this.converters = new Converter[requested.getFieldCount()];
      for (int i = 0; i < converters.length; i++) {
        Type fileField = requested.getType(i);
        int index = type.indexOf(fileField.getName());
        StructField field = type.fields().get(index);
        String fieldPath = path.isEmpty() ? field.name() : path + "." + field.name();
        converters[i] = create(key, fieldPath, fileField, field.type(), this, index);
      }
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return converters[fieldIndex];
    }

    @Override
    public void start() {
      current = template.clone();
    }

    @Override
    public void end() {
      if (parent != null) {
        parent.current[indexInParent] = current;
      }
    }
  }

  private static Converter create(
      String key, String path, Type fileField, DataType type, StructConverter owner, int index) {
    if (type instanceof StructType struct) {
      if (fileField.isPrimitive()) {
        throw incompatible(key, path, type, fileField);
      }
      return new StructConverter(
          key, path, fileField.asGroupType(), struct, new Object[struct.size()], owner, index);
    }
    if (!fileField.isPrimitive()) {
      throw incompatible(key, path, type, fileField);
    }
    org.apache.parquet.schema.PrimitiveType primitive = fileField.asPrimitiveType();
    PrimitiveTypeName physical = primitive.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = primitive.getLogicalTypeAnnotation();
    if (type instanceof DecimalType decimal) {
      // A file written before the column widened (typeWidening) stores a smaller scale, or a whole
      // number (integer or long, no decimal annotation): its values are rescaled without loss.
      boolean physicalOk =
          physical == PrimitiveTypeName.INT32
              || physical == PrimitiveTypeName.INT64
              || physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
              || physical == PrimitiveTypeName.BINARY;
      int fileScale;
      if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
        fileScale = d.getScale();
      } else if (wholeNumber(physical, logical)) {
        fileScale = 0;
      } else {
        throw incompatible(key, path, type, fileField);
      }
      if (fileScale > decimal.scale() || !physicalOk) {
        throw incompatible(key, path, type, fileField);
      }
      return new DecimalConverter(owner, index, fileScale, decimal.scale());
    }
    if (type == PrimitiveType.LONG
        && physical == PrimitiveTypeName.INT32
        && wholeNumber(physical, logical)) {
      return new IntAsLongConverter(owner, index); // integer widened to long
    }
    if (type == PrimitiveType.DOUBLE
        && physical == PrimitiveTypeName.INT32
        && wholeNumber(physical, logical)) {
      return new IntAsDoubleConverter(owner, index); // integer widened to double
    }
    PrimitiveTypeName expected =
        switch ((PrimitiveType) type) {
          case STRING, BINARY -> PrimitiveTypeName.BINARY;
          case INTEGER, DATE -> PrimitiveTypeName.INT32;
          case LONG, TIMESTAMP -> PrimitiveTypeName.INT64;
          case DOUBLE -> PrimitiveTypeName.DOUBLE;
          case BOOLEAN -> PrimitiveTypeName.BOOLEAN;
        };
    if (physical != expected) {
      throw incompatible(key, path, type, fileField);
    }
    return switch ((PrimitiveType) type) {
      case STRING -> new StringConverter(owner, index);
      case BINARY -> new BinaryConverter(owner, index);
      case INTEGER -> new IntConverter(owner, index);
      case DATE -> new DateConverter(owner, index);
      case LONG -> new LongConverter(owner, index);
      case TIMESTAMP -> {
        if (!(logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts)
            || ts.getUnit() != LogicalTypeAnnotation.TimeUnit.MICROS) {
          throw incompatible(key, path, type, fileField);
        }
        yield new TimestampConverter(owner, index);
      }
      case DOUBLE -> new DoubleConverter(owner, index);
      case BOOLEAN -> new BooleanConverter(owner, index);
    };
  }

  /** A plain or signed-integer-annotated INT32/INT64: a file's integer or long column. */
  private static boolean wholeNumber(PrimitiveTypeName physical, LogicalTypeAnnotation logical) {
    boolean integral = physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64;
    return integral
        && (logical == null
            || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && i.isSigned());
  }

  private static IllegalStateException incompatible(
      String key, String path, DataType type, Type fileField) {
    return new IllegalStateException(
        DataErrors.incompatibleColumn(key, path, type, fileField.toString()));
  }

  /** Stores converted values into one slot of the array its owner is assembling. */
  private abstract static class SlotConverter extends PrimitiveConverter {
    private final StructConverter owner;
    private final int index;

    SlotConverter(StructConverter owner, int index) {
      this.owner = owner;
      this.index = index;
    }

    final void set(Object value) {
      owner.current[index] = value;
    }
  }

  /** Decodes each dictionary entry once: repeated strings cost no UTF-8 decoding per row. */
  private static final class StringConverter extends SlotConverter {
    private String[] dictionary;

    StringConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public boolean hasDictionarySupport() {
      return true;
    }

    @Override
    public void setDictionary(Dictionary dict) {
      dictionary = new String[dict.getMaxId() + 1];
      for (int i = 0; i < dictionary.length; i++) {
        dictionary[i] = dict.decodeToBinary(i).toStringUsingUTF8();
      }
    }

    @Override
    public void addValueFromDictionary(int dictionaryId) {
      set(dictionary[dictionaryId]);
    }

    @Override
    public void addBinary(Binary value) {
      set(value.toStringUsingUTF8());
    }
  }

  private static final class BinaryConverter extends SlotConverter {
    BinaryConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addBinary(Binary value) {
      set(value.getBytes());
    }
  }

  private static final class IntConverter extends SlotConverter {
    IntConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set(value);
    }
  }

  private static final class IntAsLongConverter extends SlotConverter {
    IntAsLongConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set((long) value);
    }
  }

  private static final class IntAsDoubleConverter extends SlotConverter {
    IntAsDoubleConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set((double) value);
    }
  }

  private static final class DateConverter extends SlotConverter {
    DateConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set(LocalDate.ofEpochDay(value));
    }
  }

  private static final class LongConverter extends SlotConverter {
    LongConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addLong(long value) {
      set(value);
    }
  }

  private static final class TimestampConverter extends SlotConverter {
    TimestampConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addLong(long value) {
      set(PrimitiveFieldWriters.TimestampWriter.fromMicros(value));
    }
  }

  private static final class DoubleConverter extends SlotConverter {
    DoubleConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addDouble(double value) {
      set(value);
    }
  }

  private static final class BooleanConverter extends SlotConverter {
    BooleanConverter(StructConverter owner, int index) {
      super(owner, index);
    }

    @Override
    public void addBoolean(boolean value) {
      set(value);
    }
  }

  private static final class DecimalConverter extends SlotConverter {
    private final int fileScale;
    private final int scale;

    /** Reads unscaled values of {@code fileScale} as decimals of the table's {@code scale}. */
    DecimalConverter(StructConverter owner, int index, int fileScale, int scale) {
      super(owner, index);
      this.fileScale = fileScale;
      this.scale = scale;
    }

    private void setScaled(BigDecimal value) {
      set(fileScale == scale ? value : value.setScale(scale)); // only ever grows: exact
    }

    @Override
    public void addInt(int value) {
      setScaled(BigDecimal.valueOf(value, fileScale));
    }

    @Override
    public void addLong(long value) {
      setScaled(BigDecimal.valueOf(value, fileScale));
    }

    @Override
    public void addBinary(Binary value) {
      setScaled(new BigDecimal(new BigInteger(value.getBytes()), fileScale));
    }
  }
}
