package dev.tributary.service.parse.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.WriterRow;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code format.protobuf.columns: all}: every singular field of the writer message becomes a column
 * (nested messages dotted, well-known types typed), per schema id and message; a v2 message brings
 * its new field; the record key's fields name the key; a key that is not Protobuf fails with the
 * reason.
 */
class ProtobufWriterSchemaDecoderTest {
  private static final String V1 =
      """
      syntax = "proto3";
      package shop;
      import "google/protobuf/timestamp.proto";
      message Customer {
        int64 id = 1;
        string name = 2;
        google.protobuf.Timestamp updated = 3;
        repeated string tags = 4;
        Address address = 5;
        uint32 visits = 6;
        message Address { string city = 1; }
      }
      """;

  private static final String V2 =
      V1.replace("uint32 visits = 6;", "uint32 visits = 6;\n  string email = 7;");

  private static final String KEY =
      """
      syntax = "proto3";
      package shop;
      message CustomerKey { int64 id = 1; }
      """;

  private final ProtobufSchema v1 = ProtobufSchema.compile(V1, Map.of());
  private final ProtobufSchema v2 = ProtobufSchema.compile(V2, Map.of());
  private final ProtobufSchema key = ProtobufSchema.compile(KEY, Map.of());

  private final Map<Integer, RegisteredSchema> registry =
      Map.of(
          1, new RegisteredSchema(1, "PROTOBUF", V1, List.of()),
          2, new RegisteredSchema(2, "PROTOBUF", V2, List.of()),
          3, new RegisteredSchema(3, "PROTOBUF", KEY, List.of()));

  private ProtobufWriterSchemaDecoder decoder() {
    return new ProtobufWriterSchemaDecoder(
        "shop",
        id -> {
          RegisteredSchema s = registry.get(id);
          if (s == null) {
            throw new UnknownSchemaException(id, "schema id " + id + " is unknown");
          }
          return s;
        },
        "",
        1 << 20);
  }

  private static byte[] wire(int id, ProtobufSchema schema, DynamicMessage m) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(ConfluentWireFormat.header(id));
    out.writeBytes(ProtoFixtures.payload(schema, m));
    return out.toByteArray();
  }

  private static DynamicMessage customer(ProtobufSchema schema, long id, String email) {
    Descriptor d = schema.message("shop.Customer").orElseThrow();
    Descriptor address = d.findFieldByName("address").getMessageType();
    DynamicMessage.Builder b =
        DynamicMessage.newBuilder(d)
            .setField(d.findFieldByName("id"), id)
            .setField(d.findFieldByName("name"), "c" + id)
            .setField(
                d.findFieldByName("updated"),
                Timestamp.newBuilder().setSeconds(1_767_225_600L).build())
            .addRepeatedField(d.findFieldByName("tags"), "vip")
            .setField(
                d.findFieldByName("address"),
                DynamicMessage.newBuilder(address)
                    .setField(address.findFieldByName("city"), "Lyon")
                    .build())
            .setField(d.findFieldByName("visits"), 3);
    if (email != null) {
      b.setField(d.findFieldByName("email"), email);
    }
    return b.build();
  }

  private static byte[] keyOf(ProtobufSchema schema, long id) {
    Descriptor d = schema.message("shop.CustomerKey").orElseThrow();
    return wire(
        3, schema, DynamicMessage.newBuilder(d).setField(d.findFieldByName("id"), id).build());
  }

  @Test
  void everyFieldOfTheWriterMessageIsAColumnAndAV2MessageBringsItsNewField() {
    ParseResult r =
        decoder().decode("shop.customers", 0, 5, null, wire(1, v1, customer(v1, 7, null)));
    WriterRow row = WriterRow.of(((ParseResult.Success) r).row());
    assertThat(row.schema().fieldNames())
        .containsExactly("id", "name", "updated", "address", "visits");
    assertThat(row.schema().field("updated").orElseThrow().type().deltaName())
        .isEqualTo("timestamp");
    assertThat(row.values()[0]).isEqualTo(7L);
    assertThat(row.values()[2]).isEqualTo(Instant.ofEpochSecond(1_767_225_600L));
    assertThat((Object[]) row.values()[3]).containsExactly("Lyon");
    assertThat(row.values()[4]).isEqualTo(3L);
    assertThat(row.origin()).isEqualTo("writer schema id 1");

    ParseResult r2 =
        decoder().decode("shop.customers", 0, 6, null, wire(2, v2, customer(v2, 8, "e@x")));
    WriterRow row2 = WriterRow.of(((ParseResult.Success) r2).row());
    assertThat(row2.schema().fieldNames()).endsWith("visits", "email");
    assertThat(row2.values()[5]).isEqualTo("e@x");
  }

  @Test
  void theRecordKeysFieldsNameTheKeyAndAKeyThatIsNotProtobufIsAFailureNamingIt() {
    ProtobufWriterSchemaDecoder keyed = decoder().withRecordKeys();
    ParseResult r =
        keyed.decode("shop.customers", 1, 9, keyOf(key, 7), wire(1, v1, customer(v1, 7, null)));
    assertThat(WriterRow.of(((ParseResult.Success) r).row()).key()).containsExactly("id");

    ParseResult bad =
        keyed.decode("shop.customers", 1, 10, "7".getBytes(), wire(1, v1, customer(v1, 7, null)));
    assertThat(((ParseResult.Failure) bad).error()).startsWith("shop.customers/1 offset 10: key: ");

    ParseResult tombstone = keyed.decodeKey("shop.customers", 1, 11, keyOf(key, 9), List.of());
    WriterRow k = WriterRow.of(((ParseResult.Success) tombstone).row());
    assertThat(k.schema().fieldNames()).containsExactly("id");
    assertThat(k.values()).containsExactly(9L);
  }
}
