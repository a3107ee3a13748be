package dev.tributary.service.parse.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.tributary.service.parse.EpochUnit;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.List;
import java.util.Map;

/**
 * Reads messages of one type into {@code Object[]} rows aligned with a declared struct, matching
 * columns to fields by the field's name in the {@code .proto}. Built once per (message type,
 * declared columns); {@link #toRow} only reads fields.
 *
 * <p>Nulls follow Protobuf's presence rules: a declared column with no such field in the writer's
 * message is null (Avro-style resolution: the writer does not have it); a field with presence
 * (message-typed, wrapper, oneof member, proto2 {@code optional}, proto3 {@code optional}) that is
 * not set is null; a proto3 field without presence always has a value, its default (0, "", false,
 * the enum's first value) when the producer did not set it, because the bytes cannot tell the two
 * apart.
 */
final class MessageConverter {
  private final Descriptor type;
  private final Slot[] slots;

  /** One declared column: its field (null if the writer has none) and how to convert it. */
  private record Slot(FieldDescriptor field, ValueConverter converter, MessageConverter nested) {}

  MessageConverter(
      String path, Descriptor type, StructType declared, Map<String, EpochUnit> units) {
    this.type = type;
    List<StructField> fields = declared.fields();
    this.slots = new Slot[fields.size()];
    for (int i = 0; i < slots.length; i++) {
      StructField column = fields.get(i);
      String columnPath = path.isEmpty() ? column.name() : path + "." + column.name();
      FieldDescriptor field = type.findFieldByName(column.name());
      if (field == null) {
        slots[i] = new Slot(null, null, null);
        continue;
      }
      ValueConverter converter =
          ValueConverters.of(columnPath, field, column.type(), units, type.getFullName());
      MessageConverter nested =
          converter instanceof ValueConverters.Nested n ? n.converter() : null;
      slots[i] = new Slot(field, converter, nested);
    }
  }

  Descriptor type() {
    return type;
  }

  Object[] toRow(Message message) throws ProtobufValueException {
    Object[] row = new Object[slots.length];
    for (int i = 0; i < slots.length; i++) {
      Slot slot = slots[i];
      if (slot.field == null) {
        continue;
      }
      if (slot.converter instanceof ValueConverter.Misfit misfit) {
        misfit.convert(null);
      }
      if (slot.field.hasPresence() && !message.hasField(slot.field)) {
        continue;
      }
      row[i] = slot.converter.convert(message.getField(slot.field));
    }
    return row;
  }

  /**
   * A copy of {@code message} with only the fields no declared column reads: declared fields are
   * cleared, declared nested structs keep their own undeclared fields (a nested message left empty
   * is cleared too). Unknown fields (numbers the schema does not define) are dropped: they have no
   * name to render.
   */
  Message undeclared(Message message) {
    Message.Builder b = message.toBuilder();
    b.setUnknownFields(UnknownFieldSet.getDefaultInstance());
    for (Slot slot : slots) {
      if (slot.field == null) {
        continue;
      }
      if (slot.nested != null && message.hasField(slot.field)) {
        Message rest = slot.nested.undeclared((Message) message.getField(slot.field));
        if (rest.getAllFields().isEmpty()) {
          b.clearField(slot.field);
        } else {
          b.setField(slot.field, rest);
        }
      } else {
        b.clearField(slot.field);
      }
    }
    // Partial: clearing a declared proto2 required field must not make the copy unbuildable.
    return b.buildPartial();
  }
}
