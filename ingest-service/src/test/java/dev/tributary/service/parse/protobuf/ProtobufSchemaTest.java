package dev.tributary.service.parse.protobuf;

import static dev.tributary.service.parse.protobuf.ProtoFixtures.orderSchema;
import static dev.tributary.service.parse.protobuf.ProtoFixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProtobufSchemaTest {

  @Test
  void compilesASchemaWithAReferenceAndWellKnownImports() {
    ProtobufSchema schema = orderSchema();
    Descriptor order = schema.message("com.example.Order").orElseThrow();

    assertThat(schema.file().getPackage()).isEqualTo("com.example");
    assertThat(schema.file().getDependencies())
        .extracting(f -> f.getName())
        .containsExactly(
            "google/protobuf/any.proto",
            "google/protobuf/timestamp.proto",
            "google/protobuf/wrappers.proto",
            "google/type/date.proto",
            "common/address.proto");
    assertThat(order.findFieldByName("event_time").getMessageType().getFullName())
        .isEqualTo("google.protobuf.Timestamp");
    assertThat(order.findFieldByName("address").getMessageType().getFullName())
        .isEqualTo("common.Address");
    assertThat(order.findFieldByName("customer").getMessageType().getFullName())
        .isEqualTo("com.example.Order.Customer");
    assertThat(order.findFieldByName("status").getEnumType().getFullName())
        .isEqualTo("com.example.Order.Status");
    assertThat(order.findFieldByName("status").getEnumType().getValues())
        .extracting(v -> v.getName())
        .containsExactly("STATUS_UNKNOWN", "PLACED", "SHIPPED");
  }

  @Test
  void keepsOneofsProto3OptionalMapsAndRepeated() {
    Descriptor order = orderSchema().message("com.example.Order").orElseThrow();

    FieldDescriptor note = order.findFieldByName("note");
    assertThat(note.hasPresence()).isTrue();
    assertThat(note.getRealContainingOneof()).isNull();
    assertThat(order.findFieldByName("quantity").hasPresence()).isFalse();
    assertThat(order.getRealOneofs()).hasSize(1);
    assertThat(order.getRealOneofs().get(0).getName()).isEqualTo("payment");
    assertThat(order.getRealOneofs().get(0).getFields())
        .extracting(FieldDescriptor::getName)
        .containsExactly("card_token", "voucher_id");
    assertThat(order.findFieldByName("counters").isMapField()).isTrue();
    assertThat(order.findFieldByName("counters").getMessageType().getName())
        .isEqualTo("CountersEntry");
    assertThat(order.findFieldByName("tags").isRepeated()).isTrue();
    assertThat(order.findFieldByName("tags").isMapField()).isFalse();
    // Source order, though wire-schema lists plain, oneof and optional fields apart.
    assertThat(order.getFields().subList(19, 25))
        .extracting(FieldDescriptor::getName)
        .containsExactly(
            "discount_cents", "coupon", "note", "card_token", "voucher_id", "created_millis");
  }

  @Test
  void keepsProto2LabelsAndDefaults() {
    ProtobufSchema schema = ProtobufSchema.compile(text("legacy.proto"), Map.of());
    Descriptor legacy = schema.message("legacy.Legacy").orElseThrow();

    assertThat(legacy.findFieldByName("id").isRequired()).isTrue();
    assertThat(legacy.findFieldByName("count").getDefaultValue()).isEqualTo(7);
    assertThat(legacy.findFieldByName("count").hasPresence()).isTrue();
  }

  @Test
  void messageIndexesSelectTopLevelAndNestedMessagesSkippingMapEntries() {
    ProtobufSchema schema = orderSchema();

    assertThat(name(schema, 0)).contains("com.example.Order");
    assertThat(name(schema, 1)).contains("com.example.Refund");
    assertThat(name(schema, 0, 0)).contains("com.example.Order.Customer");
    assertThat(name(schema, 0, 0, 0)).contains("com.example.Order.Customer.Loyalty");
    assertThat(name(schema, 0, 1)).contains("com.example.Order.Line");
    // Order's third nested type is the synthetic CountersEntry: not a declared message.
    assertThat(name(schema, 0, 2)).isEmpty();
    assertThat(name(schema, 2)).isEmpty();
    Descriptor loyalty = schema.message("com.example.Order.Customer.Loyalty").orElseThrow();
    assertThat(schema.indexesOf(loyalty).indexes()).containsExactly(0, 0, 0);
  }

  @Test
  void anImportThatIsNeitherAReferenceNorWellKnownIsRefused() {
    assertThatThrownBy(() -> ProtobufSchema.compile(text("order.proto"), Map.of()))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessage(
            "Protobuf schema file registry-schema.proto imports common/address.proto, which is"
                + " neither among the schema's references nor a well-known type; register it and list it"
                + " as a reference");
  }

  @Test
  void aSyntaxErrorNamesTheFile() {
    assertThatThrownBy(
            () ->
                ProtobufSchema.compile(
                    "syntax = \"proto3\";\nmessage A { string x = ; }", Map.of()))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessageStartingWith("Protobuf schema file registry-schema.proto does not parse: ")
        .hasMessageContaining("2:");
  }

  @Test
  void anUnresolvableTypeNameIsRefused() {
    assertThatThrownBy(
            () ->
                ProtobufSchema.compile(
                    "syntax = \"proto3\";\nmessage A { Missing x = 1; }", Map.of()))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessageStartingWith("Protobuf schema file registry-schema.proto is not valid: ")
        .hasMessageContaining("Missing");
  }

  @Test
  void publicImportsAreReexported() {
    String root = "syntax = \"proto3\";\nimport \"facade.proto\";\nmessage A { inner.B b = 1; }";
    String facade = "syntax = \"proto3\";\nimport public \"inner.proto\";";
    String inner = "syntax = \"proto3\";\npackage inner;\nmessage B { string y = 1; }";

    ProtobufSchema schema =
        ProtobufSchema.compile(root, Map.of("facade.proto", facade, "inner.proto", inner));

    Descriptor a = schema.message("A").orElseThrow();
    assertThat(a.findFieldByName("b").getMessageType().getFullName()).isEqualTo("inner.B");
    assertThat(schema.file().getDependencies().get(0).getPublicDependencies())
        .extracting(f -> f.getName())
        .containsExactly("inner.proto");
  }

  @Test
  void importCyclesAreRefused() {
    String a = "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A { string x = 1; }";
    String b = "syntax = \"proto3\";\nimport \"a.proto\";\nmessage B { string y = 1; }";
    assertThatThrownBy(() -> ProtobufSchema.compile(a, Map.of("a.proto", a, "b.proto", b)))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessageStartingWith("Protobuf schema files import each other in a cycle");
  }

  private static Optional<String> name(ProtobufSchema schema, Integer... indexes) {
    return schema.messageAt(new MessageIndexes(List.of(indexes))).map(Descriptor::getFullName);
  }
}
