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
 * name, undeclared ones skipped (with everything nested in them), absent ones left null. When a
 * key repeats, the last value wins (as in Jackson's own binding).
 */
final class StructReader extends FieldReader {
  private final int width;
  // Jackson hands out canonical, interned field names (JsonFactory's INTERN_FIELD_NAMES, on by
  // default), and producers usually write fields in one fixed order. So the common case is an
  // identity check against the field after the previous match; the map (whose String hashes are
  // cached) serves records in another order and undeclared fields.
  private final String[] names;
  private final Slot[] byIndex;
  private final Map<String, Slot> slots;

  private record Slot(int index, FieldReader reader) {}

  StructReader(String path, StructType struct) {
    super(path, struct);
    List<StructField> fields = struct.fields();
    this.width = fields.size();
    this.names = new String[width];
    this.byIndex = new Slot[width];
    this.slots = new HashMap<>(fields.size() * 2);
    for (int i = 0; i < fields.size(); i++) {
      StructField f = fields.get(i);
      String childPath = path.isEmpty() ? f.name() : path + "." + f.name();
      Slot slot = new Slot(i, FieldReader.of(childPath, f.type()));
      names[i] = f.name().intern();
      byIndex[i] = slot;
      slots.put(f.name(), slot);
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
    int expected = 0;
    while ((name = p.nextFieldName()) != null) {
      JsonToken t = p.nextToken();
      Slot slot;
      if (expected < width && names[expected] == name) {
        slot = byIndex[expected++];
      } else {
        slot = slots.get(name);
        if (slot != null) {
          expected = slot.index + 1;
        }
      }
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
}
