package dev.tributary.table.data;

import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.VariantType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * field writers. Each converter checks on creation that the file stores its column in a physical
 * type it can read exactly: the one our writer uses, or what other writers use for the same table
 * type (Spark's INT96 and TIMESTAMP(MILLIS) timestamps, decimals in any of the four physical types,
 * the legacy two-level lists and MAP_KEY_VALUE maps) or an older, narrower type the column was
 * widened from. Anything else fails with a clear message instead of producing wrong values.
 */
final class RowConverters {
  private RowConverters() {}

  /**
   * A converter assembling an {@code Object[]} (a row, a struct, or the scratch slots of a list
   * element or map entry) that its child converters fill through {@link #accept}.
   */
  abstract static class Holder extends GroupConverter {
    Object[] current;

    /** Takes the value of the child at {@code index}; a list appends it instead. */
    void accept(int index, Object value) {
      current[index] = value;
    }
  }

  /** A struct (or the whole row): fills {@link #current} from its field converters. */
  static final class StructConverter extends Holder {
    private final Converter[] converters;
    private final Object[] template;
    private final Holder parent;
    private final int indexInParent;

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
        Holder parent,
        int indexInParent) {
      this.template = template;
      this.parent = parent;
      this.indexInParent = indexInParent;
      this.converters = new Converter[requested.getFieldCount()];
      for (int i = 0; i < converters.length; i++) {
        Type fileField = requested.getType(i);
        int index = type.indexOf(fileField.getName());
        if (index < 0) {
          // a field of a struct inside a list or map that the table dropped: never projected away
          converters[i] = discard(fileField);
          continue;
        }
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
        parent.accept(indexInParent, current);
      }
    }
  }

  /**
   * A list: the LIST-annotated group, whose one repeated child is either each element's wrapper
   * (the three-level form Spark writes, {@code list} / {@code element}) or, in the two-level forms
   * older writers use (Spark's {@code writeLegacyFormat}), the element itself. The repeated child
   * is the element when it is a primitive, a group of several fields, or a group named {@code
   * array} or {@code <list>_tuple} (the Parquet format's backward-compatibility rules).
   */
  private static final class ListConverter extends Holder {
    private final Holder parent;
    private final int indexInParent;
    private final Converter repeated;
    private List<Object> values;

    ListConverter(
        String key, String path, GroupType group, ArrayType type, Holder parent, int index) {
      this.parent = parent;
      this.indexInParent = index;
      Type repeatedType = group.getType(0);
      if (elementIsRepeated(group)) {
        repeated = create(key, path + ".element", repeatedType, type.elementType(), this, 0);
      } else {
        repeated =
            new ElementConverter(
                key, path, repeatedType.asGroupType().getType(0), type.elementType(), this);
      }
    }

    @Override
    void accept(int index, Object value) {
      values.add(value);
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return repeated;
    }

    @Override
    public void start() {
      values = new ArrayList<>();
    }

    @Override
    public void end() {
      parent.accept(indexInParent, Collections.unmodifiableList(values));
    }
  }

  /** True if the repeated child of a LIST group is the element, not a wrapper of it. */
  static boolean elementIsRepeated(GroupType list) {
    Type repeated = list.getType(0);
    return repeated.isPrimitive()
        || repeated.asGroupType().getFieldCount() > 1
        || repeated.getName().equals("array")
        || repeated.getName().equals(list.getName() + "_tuple");
  }

  /** The three-level list's wrapper of one element: a null element is a wrapper without one. */
  private static final class ElementConverter extends Holder {
    private final ListConverter list;
    private final Converter element;

    ElementConverter(
        String key, String path, Type elementField, DataType elementType, ListConverter list) {
      this.list = list;
      this.current = new Object[1];
      this.element = create(key, path + ".element", elementField, elementType, this, 0);
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return element;
    }

    @Override
    public void start() {
      current[0] = null;
    }

    @Override
    public void end() {
      list.accept(0, current[0]);
    }
  }

  /** A map: the MAP-annotated group, one repeated key/value group per entry. */
  private static final class MapConverter extends Holder {
    private final Holder parent;
    private final int indexInParent;
    private final EntryConverter entries;
    private Map<Object, Object> values;

    MapConverter(String key, String path, GroupType group, MapType type, Holder parent, int index) {
      this.parent = parent;
      this.indexInParent = index;
      this.entries = new EntryConverter(key, path, group.getType(0).asGroupType(), type, this);
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return entries;
    }

    @Override
    public void start() {
      values = new LinkedHashMap<>();
    }

    @Override
    public void end() {
      parent.accept(indexInParent, Collections.unmodifiableMap(values));
    }
  }

  private static final class EntryConverter extends Holder {
    private final MapConverter map;
    private final Converter[] converters;

    EntryConverter(String key, String path, GroupType entry, MapType type, MapConverter map) {
      this.map = map;
      this.current = new Object[2];
      this.converters =
          new Converter[] {
            create(key, path + ".key", entry.getType(0), type.keyType(), this, 0),
            create(key, path + ".value", entry.getType(1), type.valueType(), this, 1)
          };
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return converters[fieldIndex];
    }

    @Override
    public void start() {
      current[0] = null;
      current[1] = null;
    }

    @Override
    public void end() {
      map.values.put(current[0], current[1]);
    }
  }

  /** Reads and drops a field. */
  private static Converter discard(Type field) {
    if (field.isPrimitive()) {
      return new PrimitiveConverter() {};
    }
    GroupType group = field.asGroupType();
    Converter[] children = new Converter[group.getFieldCount()];
    for (int i = 0; i < children.length; i++) {
      children[i] = discard(group.getType(i));
    }
    return new GroupConverter() {
      @Override
      public Converter getConverter(int fieldIndex) {
        return children[fieldIndex];
      }

      @Override
      public void start() {}

      @Override
      public void end() {}
    };
  }

  private static Converter create(
      String key, String path, Type fileField, DataType type, Holder owner, int index) {
    if (type instanceof StructType struct) {
      if (fileField.isPrimitive()) {
        throw incompatible(key, path, type, fileField);
      }
      return new StructConverter(
          key, path, fileField.asGroupType(), struct, new Object[struct.size()], owner, index);
    }
    if (type instanceof ArrayType array) {
      if (fileField.isPrimitive()
          || fileField.asGroupType().getFieldCount() != 1
          || !fileField.asGroupType().getType(0).isRepetition(Type.Repetition.REPEATED)) {
        throw incompatible(key, path, type, fileField);
      }
      return new ListConverter(key, path, fileField.asGroupType(), array, owner, index);
    }
    if (type instanceof MapType map) {
      if (fileField.isPrimitive()
          || fileField.asGroupType().getFieldCount() != 1
          || fileField.asGroupType().getType(0).isPrimitive()
          || fileField.asGroupType().getType(0).asGroupType().getFieldCount() != 2) {
        throw incompatible(key, path, type, fileField);
      }
      return new MapConverter(key, path, fileField.asGroupType(), map, owner, index);
    }
    if (type instanceof VariantType) {
      return VariantConverter.of(key, path, fileField, owner, index);
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
    return primitive(key, path, fileField, (PrimitiveType) type, owner, index);
  }

  private static Converter primitive(
      String key, String path, Type fileField, PrimitiveType type, Holder owner, int index) {
    PrimitiveTypeName physical = fileField.asPrimitiveType().getPrimitiveTypeName();
    LogicalTypeAnnotation logical = fileField.asPrimitiveType().getLogicalTypeAnnotation();
    if (type == PrimitiveType.LONG
        && physical == PrimitiveTypeName.INT32
        && wholeNumber(physical, logical)) {
      return new IntAsLongConverter(owner, index); // integer, short or byte widened to long
    }
    if (type == PrimitiveType.DOUBLE
        && physical == PrimitiveTypeName.INT32
        && wholeNumber(physical, logical)) {
      return new IntAsDoubleConverter(owner, index); // integer, short or byte widened to double
    }
    if (type == PrimitiveType.DOUBLE && physical == PrimitiveTypeName.FLOAT) {
      return new FloatAsDoubleConverter(owner, index); // float widened to double
    }
    if (type == PrimitiveType.TIMESTAMP && physical == PrimitiveTypeName.INT96) {
      return new Int96TimestampConverter(owner, index); // Spark's legacy outputTimestampType
    }
    if (type == PrimitiveType.TIMESTAMP_NTZ
        && physical == PrimitiveTypeName.INT32
        && logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
      return new DateAsTimestampNtzConverter(owner, index); // date widened to timestamp_ntz
    }
    PrimitiveTypeName expected =
        switch (type) {
          case STRING, BINARY -> PrimitiveTypeName.BINARY;
          case BYTE, SHORT, INTEGER, DATE -> PrimitiveTypeName.INT32;
          case LONG, TIMESTAMP, TIMESTAMP_NTZ -> PrimitiveTypeName.INT64;
          case FLOAT -> PrimitiveTypeName.FLOAT;
          case DOUBLE -> PrimitiveTypeName.DOUBLE;
          case BOOLEAN -> PrimitiveTypeName.BOOLEAN;
        };
    if (physical != expected) {
      throw incompatible(key, path, type, fileField);
    }
    return switch (type) {
      case STRING -> new StringConverter(owner, index);
      case BINARY -> new BinaryConverter(owner, index);
      case BYTE -> new ByteConverter(owner, index);
      case SHORT -> new ShortConverter(owner, index);
      case INTEGER -> new IntConverter(owner, index);
      case DATE -> new DateConverter(owner, index);
      case LONG -> new LongConverter(owner, index);
      case TIMESTAMP, TIMESTAMP_NTZ -> {
        if (!(logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts)) {
          throw incompatible(key, path, type, fileField);
        }
        // Spark writes MICROS by default and MILLIS with outputTimestampType=TIMESTAMP_MILLIS
        long nanosPerUnit =
            switch (ts.getUnit()) {
              case MICROS -> 1_000L;
              case MILLIS -> 1_000_000L;
              case NANOS -> 1L;
            };
        yield type == PrimitiveType.TIMESTAMP
            ? new TimestampConverter(owner, index, nanosPerUnit)
            : new TimestampNtzConverter(owner, index, nanosPerUnit);
      }
      case FLOAT -> new FloatConverter(owner, index);
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
    private final Holder owner;
    private final int index;

    SlotConverter(Holder owner, int index) {
      this.owner = owner;
      this.index = index;
    }

    final void set(Object value) {
      owner.accept(index, value);
    }
  }

  /**
   * A variant column: the group of the {@code value} and {@code metadata} binaries (in either
   * order) rendered as its JSON text when the group ends ({@link VariantJson}). A shredded variant
   * (a {@code typed_value} beside them, the {@code variantShredding} features) is refused.
   */
  private static final class VariantConverter extends Holder {
    private final String key;
    private final String path;
    private final Holder owner;
    private final int index;
    private final int valueIndex;
    private final Converter[] children;

    private VariantConverter(String key, String path, Holder owner, int index, int valueIndex) {
      this.key = key;
      this.path = path;
      this.owner = owner;
      this.index = index;
      this.valueIndex = valueIndex;
      this.children = new Converter[] {new BinaryConverter(this, 0), new BinaryConverter(this, 1)};
    }

    static VariantConverter of(String key, String path, Type fileField, Holder owner, int index) {
      if (fileField.isPrimitive()
          || fileField.asGroupType().getFieldCount() != 2
          || !binary(fileField.asGroupType(), "value")
          || !binary(fileField.asGroupType(), "metadata")) {
        throw incompatible(key, path, VariantType.VARIANT, fileField);
      }
      GroupType group = fileField.asGroupType();
      return new VariantConverter(key, path, owner, index, group.getFieldIndex("value"));
    }

    private static boolean binary(GroupType group, String name) {
      return group.containsField(name)
          && group.getType(name).isPrimitive()
          && group.getType(name).asPrimitiveType().getPrimitiveTypeName()
              == PrimitiveTypeName.BINARY;
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      // slot 0 is the value, slot 1 the metadata, whatever order the file keeps them in
      return children[fieldIndex == valueIndex ? 0 : 1];
    }

    @Override
    public void start() {
      current = new Object[2];
    }

    @Override
    public void end() {
      if (!(current[0] instanceof byte[] value) || !(current[1] instanceof byte[] metadata)) {
        throw new IllegalStateException(
            DataErrors.malformedVariant(key, path, "its value or metadata is null"));
      }
      try {
        owner.accept(index, VariantJson.toJson(value, metadata));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(DataErrors.malformedVariant(key, path, e.getMessage()), e);
      }
    }
  }

  /** Decodes each dictionary entry once: repeated strings cost no UTF-8 decoding per row. */
  private static final class StringConverter extends SlotConverter {
    private String[] dictionary;

    StringConverter(Holder owner, int index) {
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
    BinaryConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addBinary(Binary value) {
      set(value.getBytes());
    }
  }

  private static final class IntConverter extends SlotConverter {
    IntConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set(value);
    }
  }

  private static final class IntAsLongConverter extends SlotConverter {
    IntAsLongConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set((long) value);
    }
  }

  private static final class IntAsDoubleConverter extends SlotConverter {
    IntAsDoubleConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set((double) value);
    }
  }

  private static final class DateConverter extends SlotConverter {
    DateConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set(LocalDate.ofEpochDay(value));
    }
  }

  private static final class LongConverter extends SlotConverter {
    LongConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addLong(long value) {
      set(value);
    }
  }

  /** The instant of a count of {@code nanosPerUnit} nanoseconds since the epoch. */
  static Instant instant(long value, long nanosPerUnit) {
    if (nanosPerUnit == 1_000L) {
      return PrimitiveFieldWriters.TimestampWriter.fromMicros(value);
    }
    long perSecond = 1_000_000_000L / nanosPerUnit;
    return Instant.ofEpochSecond(
        Math.floorDiv(value, perSecond), Math.floorMod(value, perSecond) * nanosPerUnit);
  }

  private static final class TimestampConverter extends SlotConverter {
    private final long nanosPerUnit;

    /** Values counted in units of {@code nanosPerUnit} nanoseconds since the epoch. */
    TimestampConverter(Holder owner, int index, long nanosPerUnit) {
      super(owner, index);
      this.nanosPerUnit = nanosPerUnit;
    }

    @Override
    public void addLong(long value) {
      set(instant(value, nanosPerUnit));
    }
  }

  /**
   * timestamp_ntz: the wall-clock time whose count since 1970-01-01T00:00 (as if it were UTC) is
   * stored.
   */
  private static final class TimestampNtzConverter extends SlotConverter {
    private final long nanosPerUnit;

    TimestampNtzConverter(Holder owner, int index, long nanosPerUnit) {
      super(owner, index);
      this.nanosPerUnit = nanosPerUnit;
    }

    @Override
    public void addLong(long value) {
      set(LocalDateTime.ofInstant(instant(value, nanosPerUnit), ZoneOffset.UTC));
    }
  }

  private static final class DateAsTimestampNtzConverter extends SlotConverter {
    DateAsTimestampNtzConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set(LocalDate.ofEpochDay(value).atStartOfDay());
    }
  }

  private static final class ByteConverter extends SlotConverter {
    ByteConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set((byte) value);
    }
  }

  private static final class ShortConverter extends SlotConverter {
    ShortConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addInt(int value) {
      set((short) value);
    }
  }

  private static final class FloatConverter extends SlotConverter {
    FloatConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addFloat(float value) {
      set(value);
    }
  }

  private static final class FloatAsDoubleConverter extends SlotConverter {
    FloatAsDoubleConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addFloat(float value) {
      set((double) value);
    }
  }

  /**
   * Parquet's deprecated INT96 timestamp (what Spark writes with {@code
   * spark.sql.parquet.outputTimestampType=INT96}): 12 little-endian bytes, the nanoseconds of the
   * day (8) then the Julian day number (4), in UTC.
   */
  private static final class Int96TimestampConverter extends SlotConverter {
    /** The Julian day number of 1970-01-01. */
    private static final long JULIAN_EPOCH_DAY = 2_440_588L;

    Int96TimestampConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addBinary(Binary value) {
      ByteBuffer bytes = value.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
      long nanosOfDay = bytes.getLong();
      long julianDay = bytes.getInt() & 0xFFFFFFFFL;
      set(
          Instant.ofEpochSecond(
              (julianDay - JULIAN_EPOCH_DAY) * 86_400L + Math.floorDiv(nanosOfDay, 1_000_000_000L),
              Math.floorMod(nanosOfDay, 1_000_000_000L)));
    }
  }

  private static final class DoubleConverter extends SlotConverter {
    DoubleConverter(Holder owner, int index) {
      super(owner, index);
    }

    @Override
    public void addDouble(double value) {
      set(value);
    }
  }

  private static final class BooleanConverter extends SlotConverter {
    BooleanConverter(Holder owner, int index) {
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
    DecimalConverter(Holder owner, int index, int fileScale, int scale) {
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
