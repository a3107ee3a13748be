package dev.tributary.service.parse.protobuf;

import static dev.tributary.service.parse.protobuf.ProtoFixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.service.parse.DecoderUnavailableException;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.avro.SchemaSource;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import dev.tributary.table.types.PrimitiveType;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The wire decoder over schemas held in memory: header, schema per id (cached), message, key. */
class ProtobufWireDecoderTest {
  private static final String KEY_PROTO =
      """
      syntax = "proto3";
      package com.example;
      message OrderKey { string customer_id = 1; }
      """;

  private final Map<Integer, RegisteredSchema> registry = new HashMap<>();
  private final AtomicInteger lookups = new AtomicInteger();
  private final ProtobufSchema order = ProtoFixtures.orderSchema();
  private final ProtobufSchema key = ProtobufSchema.compile(KEY_PROTO, Map.of());

  ProtobufWireDecoderTest() {
    registry.put(
        1,
        new RegisteredSchema(
            1,
            "PROTOBUF",
            text("order.proto"),
            List.of(
                new RegisteredSchema.Reference(
                    "common/address.proto", "common-address", 1, text("common/address.proto")))));
    registry.put(2, new RegisteredSchema(2, "PROTOBUF", KEY_PROTO, List.of()));
    registry.put(3, new RegisteredSchema(3, "AVRO", "\"string\"", List.of()));
    registry.put(
        4, new RegisteredSchema(4, "PROTOBUF", "syntax = \"proto3\"; message {", List.of()));
  }

  private SchemaSource source() {
    return id -> {
      lookups.incrementAndGet();
      RegisteredSchema s = registry.get(id);
      if (s == null) {
        throw new UnknownSchemaException(
            id, "schema id " + id + " is not in the test registry (404)");
      }
      return s;
    };
  }

  private static LinkedHashMap<String, String> columns(String... nameTypes) {
    LinkedHashMap<String, String> c = new LinkedHashMap<>();
    for (int i = 0; i < nameTypes.length; i += 2) {
      c.put(nameTypes[i], nameTypes[i + 1]);
    }
    return c;
  }

  private ProtobufWireDecoder decoder(LinkedHashMap<String, String> keyColumns) {
    return new ProtobufWireDecoder(
        source(),
        "com.example.Order",
        columns(
            "order_id",
            "string",
            "quantity",
            "long",
            "event_time",
            "timestamp",
            "address.city",
            "string"),
        keyColumns,
        1 << 20);
  }

  private static byte[] wire(int id, ProtobufSchema schema, DynamicMessage m) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(ConfluentWireFormat.header(id));
    out.writeBytes(ProtoFixtures.payload(schema, m));
    return out.toByteArray();
  }

  private DynamicMessage order(String id, int quantity) {
    Descriptor d = order.message("com.example.Order").orElseThrow();
    Descriptor address = d.findFieldByName("address").getMessageType();
    return DynamicMessage.newBuilder(d)
        .setField(d.findFieldByName("order_id"), id)
        .setField(d.findFieldByName("quantity"), quantity)
        .setField(
            d.findFieldByName("event_time"),
            Timestamp.newBuilder().setSeconds(1_767_225_600L).build())
        .setField(
            d.findFieldByName("address"),
            DynamicMessage.newBuilder(address)
                .setField(address.findFieldByName("city"), "Lyon")
                .build())
        .build();
  }

  private DynamicMessage orderKey(String customer) {
    Descriptor d = key.message("com.example.OrderKey").orElseThrow();
    return DynamicMessage.newBuilder(d)
        .setField(d.findFieldByName("customer_id"), customer)
        .build();
  }

  @Test
  void decodesValueThenKeyColumnsAndCompilesEachSchemaIdOnce() {
    ProtobufWireDecoder decoder = decoder(columns("customer_id", "string"));

    assertThat(decoder.schema().fieldNames())
        .containsExactly("order_id", "quantity", "event_time", "address", "customer_id");
    for (int i = 0; i < 3; i++) {
      ParseResult r =
          decoder.decode(
              "orders", 0, i, wire(2, key, orderKey("c-" + i)), wire(1, order, order("o-" + i, i)));
      assertThat(((ParseResult.Success) r).row())
          .containsExactly(
              "o-" + i,
              (long) i,
              Instant.ofEpochSecond(1_767_225_600L),
              new Object[] {"Lyon"},
              "c-" + i);
    }
    ParseResult nullKey = decoder.decode("orders", 0, 3, null, wire(1, order, order("o-3", 3)));
    assertThat(((ParseResult.Success) nullKey).row()[4]).isNull();
    assertThat(lookups).as("one lookup per schema id").hasValue(2);
  }

  @Test
  void withRescueEachRowCarriesTheUndeclaredFieldsAsJsonAndTheKeyColumnsStillFollow() {
    ProtobufWireDecoder plain = decoder(columns("customer_id", "string"));
    var rescuing = plain.withEvolution(true, false);
    Descriptor d = order.message("com.example.Order").orElseThrow();
    DynamicMessage withNote =
        order("o-1", 2).toBuilder().setField(d.findFieldByName("note"), "fragile").build();

    ParseResult.Success r =
        (ParseResult.Success)
            rescuing.decode(
                "orders", 0, 0, wire(2, key, orderKey("c-1")), wire(1, order, withNote));

    assertThat(r.row())
        .containsExactly(
            "o-1", 2L, Instant.ofEpochSecond(1_767_225_600L), new Object[] {"Lyon"}, "c-1");
    assertThat(r.extras()).isNotNull();
    assertThat(r.extras().rescued().toString())
        .contains("\"note\":\"fragile\"")
        .doesNotContain("order_id");
    assertThat(r.extras().newFields()).isEmpty();
    ParseResult.Success unrescued =
        (ParseResult.Success) plain.decode("orders", 0, 0, null, wire(1, order, withNote));
    assertThat(unrescued.extras()).as("the plain decoder pays nothing for rescue").isNull();
    assertThat(plain.withEvolution(false, false)).isSameAs(plain);
    ParseResult.Success added =
        (ParseResult.Success)
            plain
                .withEvolution(false, true)
                .decode("orders", 0, 0, wire(2, key, orderKey("c-1")), wire(1, order, withNote));
    assertThat(added.row())
        .containsExactly(
            "o-1", 2L, Instant.ofEpochSecond(1_767_225_600L), new Object[] {"Lyon"}, "c-1");
    // proto3 scalars without presence read their default, so every undeclared one is reported; note
    // too.
    assertThat(added.extras().newFields())
        .contains(new DecodedExtras.NewField("note", PrimitiveType.STRING, "fragile", false));
    assertThat(added.extras().rescued()).isNull();
  }

  @Test
  void quarantinesEveryBadRecordWithTheTopicPartitionOffsetAndReason() {
    ProtobufWireDecoder decoder = decoder(columns("customer_id", "string"));
    Descriptor refund = order.message("com.example.Refund").orElseThrow();
    DynamicMessage aRefund =
        DynamicMessage.newBuilder(refund).setField(refund.findFieldByName("order_id"), "r").build();
    byte[] good = wire(1, order, order("o", 1));
    byte[] truncated = Arrays.copyOf(good, good.length - 2);

    assertThat(error(decoder, null, null))
        .isEqualTo("orders/2 offset 7: value: record value is null (a tombstone)");
    assertThat(error(decoder, null, "{\"a\":1}".getBytes()))
        .startsWith("orders/2 offset 7: value: bad magic byte 0x7b")
        .contains("use format.json");
    assertThat(error(decoder, null, wire(99, order, order("o", 1))))
        .isEqualTo("orders/2 offset 7: value: schema id 99 is not in the test registry (404)");
    assertThat(error(decoder, null, wire(3, order, order("o", 1))))
        .isEqualTo(
            "orders/2 offset 7: value: schema id 3"
                + " is a AVRO schema, not Protobuf; format.protobuf reads Protobuf only (is the topic written by another"
                + " serializer? use format.avro for it)");
    assertThat(error(decoder, null, wire(4, order, order("o", 1))))
        .startsWith(
            "orders/2 offset 7: value: schema id 4 cannot be read into the declared value columns: Protobuf"
                + " schema file");
    assertThat(error(decoder, null, wire(1, order, aRefund)))
        .isEqualTo(
            "orders/2 offset 7: value: schema id 1: the"
                + " record is a com.example.Refund message, but format.protobuf.message is com.example.Order");
    assertThat(error(decoder, null, truncated))
        .startsWith(
            "orders/2 offset 7: value: schema id 1: could not decode the Protobuf payload as com.example.Order");
    assertThat(error(decoder, new byte[] {0, 0}, good))
        .startsWith("orders/2 offset 7: key: 2 bytes, shorter than");
    assertThat(
            error(
                new ProtobufWireDecoder(
                    source(),
                    "com.example.Order",
                    columns("order_id", "string"),
                    new LinkedHashMap<>(),
                    8),
                null,
                good))
        .startsWith(
            "orders/2 offset 7: value: record is "
                + good.length
                + " bytes, above max-record-size (8 bytes)");
  }

  @Test
  void aSchemaWithoutTheConfiguredMessageOrAFieldThatCannotBeAColumnQuarantinesItsRecords() {
    ProtobufWireDecoder decoder =
        new ProtobufWireDecoder(
            source(),
            "com.example.Missing",
            columns("order_id", "string"),
            new LinkedHashMap<>(),
            1 << 20);

    assertThat(error(decoder, null, wire(1, order, order("o", 1))))
        .isEqualTo(
            "orders/2 offset 7: value: schema id 1"
                + " cannot be read into the declared value columns: format.protobuf.message is com.example.Missing, but the"
                + " schema has no such message (its top-level messages: com.example.Order, com.example.Refund); set message"
                + " to a full name (package.Message) the schema defines");
  }

  @Test
  void aRegistryThatIsDownFailsTheBatchInsteadOfQuarantining() {
    ProtobufWireDecoder decoder =
        new ProtobufWireDecoder(
            id -> {
              throw new DecoderUnavailableException("registry down", null);
            },
            "com.example.Order",
            columns("order_id", "string"),
            new LinkedHashMap<>(),
            1 << 20);

    assertThatThrownBy(() -> decoder.decode("orders", 0, 0, null, wire(1, order, order("o", 1))))
        .isInstanceOf(DecoderUnavailableException.class)
        .hasMessage("registry down");
  }

  private static String error(ProtobufWireDecoder decoder, byte[] k, byte[] v) {
    ParseResult r = decoder.decode("orders", 2, 7, k, v);
    assertThat(r).isInstanceOf(ParseResult.Failure.class);
    return ((ParseResult.Failure) r).error();
  }
}
