package dev.tributary.service.parse;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a JSON object into an {@code Object[]} aligned with a struct's fields: declared fields by
 * name, undeclared ones skipped (with everything nested in them), absent ones left null. When a key
 * repeats, the last value wins (as in Jackson's own binding).
 */
final class StructReader extends FieldReader {
  private static final int SHAPE_POSITIONS = 64;

  private final int width;
  private final Map<String, Slot> slots;
  // Producers write fields in one fixed order, and Jackson hands out canonical, interned field
  // names (JsonFactory's INTERN_FIELD_NAMES, on by default). So this remembers, position by
  // position, the name of the previous record and what it meant (a slot, or null: undeclared,
  // skipped): most fields, undeclared ones included, are then recognised by one identity check
  // instead of a hash lookup. A name that differs just takes the map. Each position holds one
  // immutable pair, so even a reader shared between threads can only miss, never misread.
  private final Seen[] shape = new Seen[SHAPE_POSITIONS];

  private record Slot(int index, FieldReader reader) {}

  private record Seen(String name, Slot slot) {}

  StructReader(String path, StructType struct, Map<String, EpochUnit> units) {
    super(path, struct);
    List<StructField> fields = struct.fields();
    this.width = fields.size();
    this.slots = new HashMap<>(fields.size() * 2);
    for (int i = 0; i < fields.size(); i++) {
      StructField f = fields.get(i);
      String childPath = path.isEmpty() ? f.name() : path + "." + f.name();
      slots.put(f.name(), new Slot(i, FieldReader.of(childPath, f.type(), units)));
    }
  }

  @Override
  Object read(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      throw RecordErrors.wrongType(path, type, p, t);
    }
    return readObject(p);
  }

  /** Reads the object whose START_OBJECT is the current token, up to its END_OBJECT. */
  Object[] readObject(JsonParser p) throws IOException {
    Object[] row = new Object[width];
    String name;
    int position = 0;
    while ((name = p.nextFieldName()) != null) {
      JsonToken t = p.nextToken();
      Slot slot = slotAt(position++, name);
      if (slot == null) {
        p.skipChildren();
      } else if (t == JsonToken.VALUE_NULL) {
        row[slot.index] = null;
      } else {
        row[slot.index] = slot.reader.read(p, t);
      }
    }
    return row;
  }

  /**
   * {@link #readObject(JsonParser)} for schema evolution: undeclared fields go to {@code rescue}
   * (see {@link Rescue#undeclared}) instead of being skipped, and, when {@code rescue} keeps
   * misfits, a value that does not fit its declared field is kept there and the field left null
   * instead of failing the record. A separate method so that the plain path pays nothing for it.
   */
  Object[] readObject(JsonParser p, Rescue rescue) throws IOException {
    Object[] row = new Object[width];
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken t = p.nextToken();
      Slot slot = slots.get(name);
      if (slot == null) {
        rescue.undeclared(path, name, p, t);
      } else if (t == JsonToken.VALUE_NULL) {
        row[slot.index] = null;
      } else if (slot.reader instanceof StructReader nested && t == JsonToken.START_OBJECT) {
        row[slot.index] = nested.readObject(p, rescue);
      } else if (!rescue.rescuesMisfits()) {
        row[slot.index] = slot.reader.read(p, t);
      } else {
        try {
          row[slot.index] = slot.reader.read(p, t);
        } catch (BadRecordException misfit) {
          // Scalar readers and a struct reader given a non-object throw on the value's first token,
          // before consuming anything: the value is still there to keep as it was sent.
          row[slot.index] = null;
          rescue.keep(path, name, p);
        }
      }
    }
    return row;
  }

  private Slot slotAt(int position, String name) {
    if (position >= SHAPE_POSITIONS) {
      return slots.get(name);
    }
    Seen seen = shape[position];
    if (seen != null && seen.name() == name) {
      return seen.slot();
    }
    Slot slot = slots.get(name);
    shape[position] = new Seen(name, slot);
    return slot;
  }
}
