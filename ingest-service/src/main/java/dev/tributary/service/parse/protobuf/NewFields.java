package dev.tributary.service.parse.protobuf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * The top-level fields of one writer message that no declared column reads, compiled once per
 * (schema id, message type), for {@code schema-evolution: { mode: add-columns }}
 * (docs/SCHEMA_EVOLUTION.md, "Protobuf"). Each is reported as a {@link DecodedExtras.NewField} with
 * the type Avro's evolution would give the same value: the integer families are long, float and
 * double double, bool boolean, and everything else string: strings as they are, enums by value name
 * (an undefined number of an open enum as its number), bytes as base64, wrappers as their
 * primitive, {@code Timestamp}, {@code Duration} and other well-known types with a JSON string form
 * as that text (RFC 3339 for a Timestamp), other messages, repeated fields and maps as their JSON
 * text (protobuf's JSON mapping, proto field names).
 *
 * <p>Presence: an unset field with presence and an empty repeated field or map report nothing (a
 * null adds nothing, as for JSON and Avro); a proto3 field without presence reports its value, the
 * default when the producer did not set it, because the bytes cannot tell the two apart (the
 * declared columns read it so too).
 */
final class NewFields {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> WRAPPERS =
      Set.of(
          "google.protobuf.DoubleValue",
          "google.protobuf.FloatValue",
          "google.protobuf.Int64Value",
          "google.protobuf.UInt64Value",
          "google.protobuf.Int32Value",
          "google.protobuf.UInt32Value",
          "google.protobuf.BoolValue",
          "google.protobuf.StringValue",
          "google.protobuf.BytesValue");

  private final FieldDescriptor[] fields;

  /** The fields of {@code type} whose names are not top-level columns of {@code declared}. */
  NewFields(Descriptor type, StructType declared) {
    List<FieldDescriptor> undeclared = new ArrayList<>();
    for (FieldDescriptor f : type.getFields()) {
      if (declared.indexOf(f.getName()) < 0) {
        undeclared.add(f);
      }
    }
    this.fields = undeclared.toArray(new FieldDescriptor[0]);
  }

  /**
   * What one message reports: its new fields and the fields they took (to leave out of the rescued
   * JSON).
   */
  record Found(List<DecodedExtras.NewField> newFields, List<FieldDescriptor> taken) {}

  /**
   * The new fields of {@code message}, in field-declaration order.
   *
   * @param rescue whether {@code _rescued_data} is on: a value no new column can hold (NaN, an
   *     infinity, a uint64 above the long range) is then left to the rescued JSON; without rescue a
   *     NaN or infinity is skipped (as Avro does) and a uint64 above the long range fails the
   *     record
   * @throws ProtobufValueException as described for {@code rescue}, or for an {@code Any} of an
   *     unknown type
   */
  Found read(Message message, boolean rescue, JsonFormat.Printer printer)
      throws ProtobufValueException {
    List<DecodedExtras.NewField> found = null;
    List<FieldDescriptor> taken = null;
    for (FieldDescriptor f : fields) {
      if (f.isRepeated()
          ? message.getRepeatedFieldCount(f) == 0
          : f.hasPresence() && !message.hasField(f)) {
        continue;
      }
      DecodedExtras.NewField nf = of(message, f, rescue, printer);
      if (nf == null) {
        continue;
      }
      if (found == null) {
        found = new ArrayList<>(2);
        taken = new ArrayList<>(2);
      }
      found.add(nf);
      taken.add(f);
    }
    return found == null ? null : new Found(found, taken);
  }

  private static DecodedExtras.NewField of(
      Message message, FieldDescriptor f, boolean rescue, JsonFormat.Printer printer)
      throws ProtobufValueException {
    Object value = message.getField(f);
    if (!f.isRepeated()
        && f.getJavaType() == FieldDescriptor.JavaType.MESSAGE
        && WRAPPERS.contains(f.getMessageType().getFullName())) {
      Message wrapper = (Message) value;
      FieldDescriptor inner = wrapper.getDescriptorForType().findFieldByName("value");
      return scalar(message, f.getName(), inner, wrapper.getField(inner), rescue);
    }
    if (f.isRepeated() || f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
      return json(message, f, value, printer);
    }
    return scalar(message, f.getName(), f, value, rescue);
  }

  private static DecodedExtras.NewField scalar(
      Message message, String name, FieldDescriptor f, Object v, boolean rescue)
      throws ProtobufValueException {
    return switch (f.getType()) {
      case INT32, SINT32, SFIXED32 -> field(name, PrimitiveType.LONG, (long) (Integer) v);
      case UINT32, FIXED32 -> field(name, PrimitiveType.LONG, Integer.toUnsignedLong((Integer) v));
      case INT64, SINT64, SFIXED64 -> field(name, PrimitiveType.LONG, v);
      case UINT64, FIXED64 -> {
        long l = (Long) v;
        if (l >= 0) {
          yield field(name, PrimitiveType.LONG, l);
        }
        if (rescue) {
          yield null;
        }
        throw new ProtobufValueException(
            ProtobufErrors.newFieldOutOfRange(
                name, message.getDescriptorForType().getFullName(), Long.toUnsignedString(l)));
      }
      case FLOAT, DOUBLE -> {
        double d = ((Number) v).doubleValue();
        yield Double.isFinite(d) ? field(name, PrimitiveType.DOUBLE, d) : null;
      }
      case BOOL -> field(name, PrimitiveType.BOOLEAN, v);
      case STRING -> field(name, PrimitiveType.STRING, v);
      case BYTES ->
          field(
              name,
              PrimitiveType.STRING,
              Base64.getEncoder().encodeToString(((ByteString) v).toByteArray()));
      case ENUM -> {
        EnumValueDescriptor e = (EnumValueDescriptor) v;
        // protobuf-java gives an open enum's undefined number a made-up descriptor with index -1.
        yield field(
            name,
            PrimitiveType.STRING,
            e.getIndex() < 0 ? Integer.toString(e.getNumber()) : e.getName());
      }
      case MESSAGE, GROUP -> throw new IllegalStateException("not a scalar: " + f.getFullName());
    };
  }

  /**
   * A message, repeated field or map as protobuf's JSON: a JSON string as its text, anything else
   * as JSON text.
   */
  private static DecodedExtras.NewField json(
      Message message, FieldDescriptor f, Object value, JsonFormat.Printer printer)
      throws ProtobufValueException {
    Message alone =
        DynamicMessage.newBuilder(message.getDescriptorForType()).setField(f, value).buildPartial();
    JsonNode node;
    try {
      node = JSON.readTree(printer.print(alone)).get(f.getName());
    } catch (InvalidProtocolBufferException e) {
      // An Any packing a type the schema does not know has no JSON form.
      throw new ProtobufValueException(
          ProtobufErrors.unrenderable(
              message.getDescriptorForType().getFullName(), e.getMessage()));
    } catch (IOException e) {
      throw new IllegalStateException(
          "JsonFormat printed text that is not JSON for field " + f.getFullName(), e);
    }
    if (node == null) {
      return null; // printed as nothing: nothing to add
    }
    return node.isTextual()
        ? field(f.getName(), PrimitiveType.STRING, node.textValue())
        : new DecodedExtras.NewField(f.getName(), PrimitiveType.STRING, node.toString(), true);
  }

  private static DecodedExtras.NewField field(String name, PrimitiveType type, Object value) {
    return new DecodedExtras.NewField(name, type, value, false);
  }
}
