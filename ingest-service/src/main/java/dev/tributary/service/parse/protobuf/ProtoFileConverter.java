package dev.tributary.service.parse.protobuf;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumOptions;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.squareup.wire.Syntax;
import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.internal.parser.EnumConstantElement;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Turns wire-schema's parse tree of one {@code .proto} file into the {@link FileDescriptorProto}
 * protoc would produce for decoding purposes: packages, imports, messages (nested), enums, oneofs,
 * maps (as the synthetic {@code XxxEntry} messages protoc generates), proto2 labels and defaults,
 * and proto3 {@code optional} (as a synthetic oneof {@code _name}, after the real oneofs, as
 * descriptor.proto requires).
 *
 * <p>Type names are kept as written ({@code Customer}, {@code common.Address}, {@code
 * .google.protobuf.Timestamp}) with no field type set for non-scalars: protobuf-java's {@code
 * FileDescriptor.buildFrom} resolves them with protoc's scoping rules and decides between message
 * and enum itself. Options are dropped except the ones that change decoding or validation ({@code
 * allow_alias}); custom options (parenthesized) need their extension files, which decoding never
 * does. Services and {@code extend} blocks are ignored: they add no field to any message (extension
 * fields then read as unknown fields). Groups are refused: wire-schema parses them, but they are a
 * deprecated proto2 encoding no registry schema should still use.
 */
final class ProtoFileConverter {
  private static final Map<String, FieldDescriptorProto.Type> SCALARS =
      Map.ofEntries(
          Map.entry("double", FieldDescriptorProto.Type.TYPE_DOUBLE),
          Map.entry("float", FieldDescriptorProto.Type.TYPE_FLOAT),
          Map.entry("int64", FieldDescriptorProto.Type.TYPE_INT64),
          Map.entry("uint64", FieldDescriptorProto.Type.TYPE_UINT64),
          Map.entry("int32", FieldDescriptorProto.Type.TYPE_INT32),
          Map.entry("fixed64", FieldDescriptorProto.Type.TYPE_FIXED64),
          Map.entry("fixed32", FieldDescriptorProto.Type.TYPE_FIXED32),
          Map.entry("bool", FieldDescriptorProto.Type.TYPE_BOOL),
          Map.entry("string", FieldDescriptorProto.Type.TYPE_STRING),
          Map.entry("bytes", FieldDescriptorProto.Type.TYPE_BYTES),
          Map.entry("uint32", FieldDescriptorProto.Type.TYPE_UINT32),
          Map.entry("sfixed32", FieldDescriptorProto.Type.TYPE_SFIXED32),
          Map.entry("sfixed64", FieldDescriptorProto.Type.TYPE_SFIXED64),
          Map.entry("sint32", FieldDescriptorProto.Type.TYPE_SINT32),
          Map.entry("sint64", FieldDescriptorProto.Type.TYPE_SINT64));

  private record Positioned(FieldElement element, FieldDescriptorProto.Builder field) {}

  private final String fileName;
  private final boolean proto3;

  private ProtoFileConverter(String fileName, boolean proto3) {
    this.fileName = fileName;
    this.proto3 = proto3;
  }

  static FileDescriptorProto convert(String fileName, ProtoFileElement file) {
    boolean proto3 = file.getSyntax() == Syntax.PROTO_3;
    ProtoFileConverter c = new ProtoFileConverter(fileName, proto3);
    FileDescriptorProto.Builder b =
        FileDescriptorProto.newBuilder().setName(fileName).setSyntax(proto3 ? "proto3" : "proto2");
    if (file.getPackageName() != null) {
      b.setPackage(file.getPackageName());
    }
    for (String i : file.getImports()) {
      b.addDependency(i);
    }
    for (String i : file.getPublicImports()) {
      b.addPublicDependency(b.getDependencyCount());
      b.addDependency(i);
    }
    for (String i : file.getWeakImports()) {
      b.addWeakDependency(b.getDependencyCount());
      b.addDependency(i);
    }
    for (TypeElement t : file.getTypes()) {
      if (t instanceof MessageElement m) {
        b.addMessageType(c.message(m, m.getName()));
      } else if (t instanceof EnumElement e) {
        b.addEnumType(enumType(e));
      }
    }
    return b.build();
  }

  private DescriptorProto message(MessageElement m, String path) {
    if (!m.getGroups().isEmpty()) {
      throw new ProtobufSchemaException(ProtobufErrors.groupsRefused(fileName, path));
    }
    DescriptorProto.Builder b = DescriptorProto.newBuilder().setName(m.getName());
    for (TypeElement t : m.getNestedTypes()) {
      if (t instanceof MessageElement nested) {
        b.addNestedType(message(nested, path + "." + nested.getName()));
      } else if (t instanceof EnumElement e) {
        b.addEnumType(enumType(e));
      }
    }
    // wire-schema lists plain fields and oneofs apart; the descriptor keeps the source order
    // (what JsonFormat and the rescued data print in), so fields are placed by source position.
    List<Positioned> fields = new ArrayList<>();
    List<FieldElement> proto3Optionals = new ArrayList<>();
    for (FieldElement f : m.getFields()) {
      if (proto3 && f.getLabel() == Field.Label.OPTIONAL) {
        proto3Optionals.add(f);
      } else {
        fields.add(new Positioned(f, field(f, b)));
      }
    }
    for (OneOfElement o : m.getOneOfs()) {
      if (!o.getGroups().isEmpty()) {
        throw new ProtobufSchemaException(ProtobufErrors.groupsRefused(fileName, path));
      }
      int index = b.getOneofDeclCount();
      b.addOneofDecl(OneofDescriptorProto.newBuilder().setName(o.getName()));
      for (FieldElement f : o.getFields()) {
        fields.add(
            new Positioned(
                f,
                field(f, b)
                    .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL)
                    .setOneofIndex(index)));
      }
    }
    // Synthetic oneofs must follow every real one (descriptor.proto's rule for proto3_optional).
    for (FieldElement f : proto3Optionals) {
      int index = b.getOneofDeclCount();
      b.addOneofDecl(OneofDescriptorProto.newBuilder().setName("_" + f.getName()));
      fields.add(new Positioned(f, field(f, b).setProto3Optional(true).setOneofIndex(index)));
    }
    fields.sort(
        Comparator.comparingInt((Positioned x) -> x.element.getLocation().getLine())
            .thenComparingInt(x -> x.element.getLocation().getColumn()));
    for (Positioned f : fields) {
      b.addField(f.field);
    }
    return b.build();
  }

  /** One field; a map field also adds its entry message to {@code owner}, as protoc does. */
  private FieldDescriptorProto.Builder field(FieldElement f, DescriptorProto.Builder owner) {
    FieldDescriptorProto.Builder b =
        FieldDescriptorProto.newBuilder()
            .setName(f.getName())
            .setNumber(f.getTag())
            .setLabel(label(f.getLabel()));
    String type = f.getType().trim();
    if (type.startsWith("map<") && type.endsWith(">")) {
      String[] kv = type.substring(4, type.length() - 1).split(",", 2);
      if (kv.length != 2) {
        throw new ProtobufSchemaException(ProtobufErrors.badMapType(fileName, f.getName(), type));
      }
      String entry = mapEntryName(f.getName());
      owner.addNestedType(
          DescriptorProto.newBuilder()
              .setName(entry)
              .setOptions(MessageOptions.newBuilder().setMapEntry(true))
              .addField(
                  typed(
                      FieldDescriptorProto.newBuilder()
                          .setName("key")
                          .setNumber(1)
                          .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL),
                      kv[0].trim()))
              .addField(
                  typed(
                      FieldDescriptorProto.newBuilder()
                          .setName("value")
                          .setNumber(2)
                          .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL),
                      kv[1].trim())));
      return b.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).setTypeName(entry);
    }
    typed(b, type);
    String defaultValue = f.getDefaultValue();
    if (defaultValue == null) {
      for (OptionElement o : f.getOptions()) {
        if (!o.isParenthesized() && o.getName().equals("default")) {
          defaultValue = String.valueOf(o.getValue());
        }
      }
    }
    if (defaultValue != null) {
      b.setDefaultValue(defaultValue);
    }
    if (f.getJsonName() != null) {
      b.setJsonName(f.getJsonName());
    }
    return b;
  }

  private static FieldDescriptorProto.Builder typed(FieldDescriptorProto.Builder b, String type) {
    FieldDescriptorProto.Type scalar = SCALARS.get(type);
    return scalar != null ? b.setType(scalar) : b.setTypeName(type);
  }

  private static FieldDescriptorProto.Label label(Field.Label label) {
    if (label == Field.Label.REQUIRED) {
      return FieldDescriptorProto.Label.LABEL_REQUIRED;
    }
    if (label == Field.Label.REPEATED) {
      return FieldDescriptorProto.Label.LABEL_REPEATED;
    }
    return FieldDescriptorProto.Label.LABEL_OPTIONAL;
  }

  /** protoc's name of a map field's entry message: the field name in CamelCase + "Entry". */
  private static String mapEntryName(String field) {
    StringBuilder s = new StringBuilder(field.length() + 5);
    boolean upper = true;
    for (char ch : field.toCharArray()) {
      if (ch == '_') {
        upper = true;
      } else if (upper) {
        s.append(Character.toUpperCase(ch));
        upper = false;
      } else {
        s.append(ch);
      }
    }
    return s.append("Entry").toString();
  }

  private static EnumDescriptorProto enumType(EnumElement e) {
    EnumDescriptorProto.Builder b = EnumDescriptorProto.newBuilder().setName(e.getName());
    for (OptionElement o : e.getOptions()) {
      if (!o.isParenthesized() && o.getName().equals("allow_alias")) {
        b.setOptions(
            EnumOptions.newBuilder()
                .setAllowAlias(Boolean.parseBoolean(String.valueOf(o.getValue()))));
      }
    }
    for (EnumConstantElement c : e.getConstants()) {
      b.addValue(EnumValueDescriptorProto.newBuilder().setName(c.getName()).setNumber(c.getTag()));
    }
    return b.build();
  }
}
