package dev.tributary.service.parse.protobuf;

import static dev.tributary.service.parse.protobuf.ProtoFixtures.orderSchema;
import static dev.tributary.service.parse.protobuf.ProtoFixtures.payload;
import static dev.tributary.service.parse.protobuf.ProtoFixtures.text;
import static dev.tributary.service.parse.protobuf.ProtoFixtures.type;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Int64Value;
import com.google.protobuf.StringValue;
import com.google.protobuf.Timestamp;
import dev.tributary.service.parse.ParseResult;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProtobufRecordDecoderTest {
  private final ProtobufSchema schema = orderSchema();
  private final Descriptor order = type(schema, "com.example.Order");

  @Test
  void decodesEveryMappedTypeIntoTheJsonParsersValueClasses() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            "com.example.Order",
            columns(
                "order_id",
                "string",
                "quantity",
                "int",
                "delta",
                "int",
                "shelf",
                "int",
                "small_count",
                "long",
                "big",
                "long",
                "big_delta",
                "long",
                "big_fixed",
                "long",
                "huge",
                "double",
                "ratio",
                "double",
                "price",
                "double",
                "paid",
                "boolean",
                "event_time",
                "timestamp",
                "ship_date",
                "date",
                "due_day",
                "date",
                "amount",
                "decimal(12,2)",
                "status",
                "string",
                "address.city",
                "string",
                "address.zip",
                "string",
                "customer.id",
                "string",
                "customer.loyalty.points",
                "long",
                "discount_cents",
                "long",
                "coupon",
                "string",
                "note",
                "string",
                "voucher_id",
                "long",
                "created_millis",
                "timestamp",
                "placed_at",
                "timestamp",
                "quantity_as_decimal_missing",
                "int"));

    DynamicMessage m =
        DynamicMessage.newBuilder(order)
            .setField(f("order_id"), "o-1")
            .setField(f("quantity"), 3)
            .setField(f("delta"), -5)
            .setField(f("shelf"), -7)
            .setField(f("small_count"), -1) // uint32 4294967295: beyond int, fine for a long column
            .setField(f("big"), 9_000_000_000L)
            .setField(f("big_delta"), -9_000_000_000L)
            .setField(f("big_fixed"), Long.MIN_VALUE)
            .setField(f("huge"), -1L) // uint64 18446744073709551615
            .setField(f("ratio"), 0.25f)
            .setField(f("price"), 19.99)
            .setField(f("paid"), true)
            .setField(
                f("event_time"),
                Timestamp.newBuilder().setSeconds(1_767_225_600L).setNanos(123_456_789).build())
            .setField(f("ship_date"), date(2026, 2, 28))
            .setField(f("due_day"), 20_000)
            .setField(f("amount"), "1234.5")
            .setField(f("status"), order.findEnumTypeByName("Status").findValueByName("SHIPPED"))
            .setField(
                f("address"),
                DynamicMessage.newBuilder(f("address").getMessageType())
                    .setField(f("address").getMessageType().findFieldByName("city"), "Lyon")
                    .setField(f("address").getMessageType().findFieldByName("country"), "FR")
                    .build())
            .setField(f("customer"), customer("c-9", "gold", 120))
            .setField(f("discount_cents"), Int64Value.of(250))
            .setField(f("coupon"), StringValue.of("SPRING"))
            .setField(f("note"), "leave at door")
            .setField(f("voucher_id"), 77L)
            .setField(f("created_millis"), 1_767_225_600_123L)
            .setField(f("placed_at"), "2026-01-01T01:00:00+01:00")
            .build();

    Object[] row = success(decoder.decode(payload(schema, m)));

    assertThat(row)
        .containsExactly(
            "o-1",
            3,
            -5,
            -7,
            4_294_967_295L,
            9_000_000_000L,
            -9_000_000_000L,
            Long.MIN_VALUE,
            1.8446744073709552E19,
            0.25,
            19.99,
            true,
            Instant.parse("2026-01-01T00:00:00.123456Z"),
            LocalDate.of(2026, 2, 28),
            LocalDate.of(2024, 10, 4),
            new BigDecimal("1234.50"),
            "SHIPPED",
            new Object[] {"Lyon", ""},
            new Object[] {"c-9", new Object[] {120L}},
            250L,
            "SPRING",
            "leave at door",
            77L,
            Instant.parse("2026-01-01T00:00:00.123Z"),
            Instant.parse("2026-01-01T00:00:00Z"),
            null);
    assertThat(row[15])
        .isInstanceOf(BigDecimal.class)
        .extracting(v -> ((BigDecimal) v).scale())
        .isEqualTo(2);
  }

  @Test
  void decodesBytesEncodedByHandFromTheProtobufEncodingRules() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            "com.example.Order",
            columns(
                "order_id",
                "string",
                "quantity",
                "int",
                "delta",
                "long",
                "price",
                "decimal(5,2)",
                "event_time",
                "timestamp",
                "status",
                "string",
                "amount",
                "decimal(8,1)",
                "paid",
                "boolean"));

    Object[] row = success(decoder.decode(ProtoFixtures.hex("order-golden.hex")));

    assertThat(row)
        .containsExactly(
            "o-1",
            3,
            -5L,
            new BigDecimal("19.99"),
            Instant.parse("2026-01-01T00:00:00.123456Z"),
            "SHIPPED",
            new BigDecimal("1234.5"),
            false);
  }

  @Test
  void unsetFieldsWithPresenceAreNullAndImplicitOnesTheirDefault() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            null,
            columns(
                "order_id",
                "string",
                "quantity",
                "int",
                "paid",
                "boolean",
                "status",
                "string",
                "event_time",
                "timestamp",
                "customer.id",
                "string",
                "discount_cents",
                "long",
                "coupon",
                "string",
                "note",
                "string",
                "card_token",
                "string",
                "voucher_id",
                "long",
                "not_in_writer",
                "string"));
    DynamicMessage m = DynamicMessage.newBuilder(order).setField(f("card_token"), "tok").build();

    Object[] row = success(decoder.decode(payload(schema, m)));

    assertThat(row)
        .containsExactly(
            "", 0, false, "STATUS_UNKNOWN", null, null, null, null, null, "tok", null, null);
  }

  @Test
  void aNestedMessageIsSelectedByItsIndexes() {
    Descriptor customer = type(schema, "com.example.Order.Customer");
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            null,
            columns(
                "id",
                "string",
                "tier",
                "string",
                "loyalty.points",
                "int",
                "loyalty.level",
                "string"));
    byte[] value = payload(schema, customer("c-1", "silver", 42));

    assertThat(value[0]).as("count 2, zig-zag").isEqualTo((byte) 4);
    assertThat(success(decoder.decode(value)))
        .containsExactly("c-1", "silver", new Object[] {42, ""});
    assertThat(schema.indexesOf(customer).indexes()).containsExactly(0, 0);
    ProtobufRecordDecoder configured =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order.Customer", columns("tier", "string"));
    assertThat(success(configured.decode(value))).containsExactly("silver");
  }

  @Test
  void aRecordOfAnotherMessageThanTheConfiguredOneFails() {
    Descriptor refund = type(schema, "com.example.Refund");
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("order_id", "string"));
    DynamicMessage m =
        DynamicMessage.newBuilder(refund)
            .setField(refund.findFieldByName("order_id"), "o-2")
            .build();

    assertThat(failure(decoder.decode(payload(schema, m))))
        .isEqualTo(
            "the record is a com.example.Refund message, but format.protobuf.message is com.example.Order");
  }

  @Test
  void withoutAConfiguredMessageTheIndexesDecide() {
    Descriptor refund = type(schema, "com.example.Refund");
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema, null, columns("order_id", "string", "amount", "decimal(5,2)"));
    DynamicMessage m =
        DynamicMessage.newBuilder(refund)
            .setField(refund.findFieldByName("order_id"), "o-2")
            .setField(refund.findFieldByName("amount"), 12.5)
            .build();

    assertThat(success(decoder.decode(payload(schema, m))))
        .containsExactly("o-2", new BigDecimal("12.50"));
    byte[] value = payload(schema, m);
    byte[] framed = new byte[value.length + 7];
    System.arraycopy(value, 0, framed, 5, value.length);
    assertThat(success(decoder.decode(framed, 5, value.length)))
        .containsExactly("o-2", new BigDecimal("12.50"));
  }

  @Test
  void indexesPointingAtNoMessageFail() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(schema, null, columns("order_id", "string"));
    byte[] value = {2, 4}; // [2]: the file has two top-level messages

    assertThat(failure(decoder.decode(value)))
        .isEqualTo(
            "Protobuf message indexes [2] point at no message of the schema (its top-level messages:"
                + " com.example.Order, com.example.Refund)");
    assertThat(failure(decoder.decode(new byte[] {4, 2})))
        .isEqualTo("invalid Protobuf message indexes: the record ends inside them");
  }

  @Test
  void aConfiguredMessageTheSchemaLacksIsRefused() {
    assertThatThrownBy(
            () ->
                ProtobufRecordDecoder.forColumns(
                    schema, "com.example.Orders", columns("order_id", "string")))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessage(
            "format.protobuf.message is com.example.Orders, but the schema has no such message"
                + " (its top-level messages: com.example.Order, com.example.Refund); set message to a full"
                + " name (package.Message) the schema defines");
  }

  @Test
  void atLeastOneColumnMustBeDeclared() {
    assertThatThrownBy(() -> ProtobufRecordDecoder.forColumns(schema, null, columns()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "format.protobuf.schema declares no column; declare at least one (column: type)");
  }

  @Test
  void aFieldWhoseTypeDoesNotFitTheDeclaredOneFailsNamingBothTypes() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("order_id", "int", "quantity", "int"));
    // Unset (the proto3 default): the schema's type alone decides, so every record fails alike.
    byte[] value =
        payload(schema, DynamicMessage.newBuilder(order).setField(f("quantity"), 1).build());

    assertThat(failure(decoder.decode(value)))
        .isEqualTo(
            "field 'order_id': declared int, but message com.example.Order has it as string; declare it as"
                + " string or timestamp or date or decimal(p,s), or remove it from the columns");
  }

  @Test
  void narrowingAnInt64IntoAnIntIsAMisfit() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            "com.example.Order",
            columns("customer.loyalty.points", "boolean", "big", "int"));
    DynamicMessage m = DynamicMessage.newBuilder(order).setField(f("big"), 1L).build();

    assertThat(failure(decoder.decode(payload(schema, m))))
        .isEqualTo(
            "field 'big': declared int, but message com.example.Order has it as int64; declare it as"
                + " long or double or timestamp or decimal(p,s), or remove it from the columns");
  }

  @Test
  void aMisfitInsideANestedStructNamesItsPath() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("customer.loyalty.points", "boolean"));
    DynamicMessage m =
        DynamicMessage.newBuilder(order).setField(f("customer"), customer("c", "t", 1)).build();

    assertThat(failure(decoder.decode(payload(schema, m))))
        .isEqualTo(
            "field 'customer.loyalty.points': declared boolean, but message com.example.Order.Customer.Loyalty"
                + " has it as int32; declare it as int or long or double or timestamp or date or decimal(p,s),"
                + " or remove it from the columns");
  }

  @Test
  void repeatedMapAndBytesFieldsCannotBeColumns() {
    assertThatThrownBy(
            () ->
                ProtobufRecordDecoder.forColumns(
                    schema, "com.example.Order", columns("tags", "string")))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessage(
            "column 'tags': field tags of message com.example.Order is repeated string, and"
                + " Tributary has no array or map column type; remove 'tags' from the declared columns"
                + " (schema-evolution.rescue keeps it in _rescued_data)");
    assertThatThrownBy(
            () ->
                ProtobufRecordDecoder.forColumns(
                    schema, "com.example.Order", columns("counters", "string")))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessageStartingWith(
            "column 'counters': field counters of message com.example.Order is a map,");
    assertThatThrownBy(
            () ->
                ProtobufRecordDecoder.forColumns(
                    schema, "com.example.Order", columns("signature", "string")))
        .isInstanceOf(ProtobufSchemaException.class)
        .hasMessageStartingWith(
            "column 'signature': field signature of message com.example.Order is bytes,");
  }

  @Test
  void withoutAConfiguredMessageARefusedTypeFailsItsRecords() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(schema, null, columns("tags", "string"));
    DynamicMessage m = DynamicMessage.newBuilder(order).addRepeatedField(f("tags"), "a").build();

    assertThat(failure(decoder.decode(payload(schema, m))))
        .startsWith("column 'tags': field tags of message com.example.Order is repeated string");
  }

  @Test
  void aMalformedPayloadFails() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("order_id", "string"));
    // Index byte 0, then field 1 (length-delimited) claiming 16 bytes of which 2 follow.
    byte[] value = {0, 0x0a, 0x10, 'o', '-'};

    assertThat(failure(decoder.decode(value)))
        .startsWith(
            "could not decode the Protobuf payload as com.example.Order: While parsing a protocol message,"
                + " the input ended unexpectedly");
    assertThat(failure(decoder.decode(new byte[0])))
        .isEqualTo("empty record: no Protobuf message indexes");
  }

  @Test
  void aMissingProto2RequiredFieldFails() {
    ProtobufSchema legacy = ProtobufSchema.compile(text("legacy.proto"), Map.of());
    Descriptor type = type(legacy, "legacy.Legacy");
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            legacy, "legacy.Legacy", columns("id", "string", "count", "int", "kind", "string"));

    assertThat(
            failure(
                decoder.decode(payload(legacy, DynamicMessage.newBuilder(type).buildPartial()))))
        .startsWith("could not decode the Protobuf payload as legacy.Legacy: ")
        .contains("id");
    DynamicMessage m =
        DynamicMessage.newBuilder(type).setField(type.findFieldByName("id"), "x").build();
    assertThat(success(decoder.decode(payload(legacy, m)))).containsExactly("x", null, null);
  }

  @Test
  void valuesOutOfTheDeclaredRangeFail() {
    ProtobufRecordDecoder ints =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("small_count", "int"));
    assertThat(
            failure(
                ints.decode(
                    payload(
                        schema,
                        DynamicMessage.newBuilder(order).setField(f("small_count"), -1).build()))))
        .isEqualTo("field 'small_count': 4294967295 is out of range for int");
    assertThat(
            success(
                ints.decode(
                    payload(
                        schema,
                        DynamicMessage.newBuilder(order).setField(f("small_count"), 5).build()))))
        .containsExactly(5);

    ProtobufRecordDecoder longs =
        ProtobufRecordDecoder.forColumns(schema, "com.example.Order", columns("huge", "long"));
    assertThat(
            failure(
                longs.decode(
                    payload(
                        schema,
                        DynamicMessage.newBuilder(order).setField(f("huge"), -1L).build()))))
        .isEqualTo("field 'huge': 18446744073709551615 is out of range for long");

    ProtobufRecordDecoder money =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("amount", "decimal(6,2)"));
    assertThat(
            failure(
                money.decode(
                    payload(
                        schema,
                        DynamicMessage.newBuilder(order).setField(f("amount"), "1.005").build()))))
        .isEqualTo(
            "field 'amount': \"1.005\" has more than 2 fraction digits, too many for decimal(6,2) (rounding is refused)");
    assertThat(
            failure(
                money.decode(
                    payload(
                        schema,
                        DynamicMessage.newBuilder(order).setField(f("amount"), "12345").build()))))
        .isEqualTo(
            "field 'amount': \"12345\" has more than 4 integer digits, too many for decimal(6,2)");
    assertThat(
            failure(
                money.decode(
                    payload(
                        schema,
                        DynamicMessage.newBuilder(order).setField(f("amount"), "ten").build()))))
        .isEqualTo("field 'amount': expected decimal(6,2), found string \"ten\"");

    ProtobufRecordDecoder times =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("event_time", "timestamp"));
    DynamicMessage farFuture =
        DynamicMessage.newBuilder(order)
            .setField(f("event_time"), Timestamp.newBuilder().setSeconds(253_402_300_800L).build())
            .build();
    assertThat(failure(times.decode(payload(schema, farFuture))))
        .isEqualTo(
            "field 'event_time': google.protobuf.Timestamp {seconds: 253402300800, nanos: 0} is outside the years 0001-9999");

    ProtobufRecordDecoder dates =
        ProtobufRecordDecoder.forColumns(schema, "com.example.Order", columns("ship_date", "date"));
    assertThat(
            failure(
                dates.decode(
                    payload(
                        schema,
                        DynamicMessage.newBuilder(order)
                            .setField(f("ship_date"), date(2026, 2, 0))
                            .build()))))
        .isEqualTo(
            "field 'ship_date': google.type.Date {year: 2026, month: 2, day: 0} is not a full calendar date in the years 0001-9999");
  }

  @Test
  void anEnumNumberTheSchemaDoesNotDefineFails() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(schema, "com.example.Order", columns("status", "string"));
    // Field 17, varint 9: a value a newer producer's schema may define.
    byte[] value = {0, (byte) 0x88, 0x01, 9};

    assertThat(failure(decoder.decode(value)))
        .isEqualTo(
            "field 'status': 9 is not a value of enum com.example.Order.Status (a newer producer's value?"
                + " register the schema that defines it)");
  }

  @Test
  void timestampColumnsReadIntegerFieldsInTheirDeclaredEpochUnit() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            "com.example.Order",
            columns("created_millis", "timestamp(seconds)", "big", "timestamp(micros)"));
    DynamicMessage m =
        DynamicMessage.newBuilder(order)
            .setField(f("created_millis"), 1_767_225_600L)
            .setField(f("big"), 1_767_225_600_000_001L)
            .build();

    assertThat(success(decoder.decode(payload(schema, m))))
        .containsExactly(
            Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:00:00.000001Z"));
  }

  @Test
  void rescuedDataHoldsEveryFieldNoDeclaredColumnReads() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            "com.example.Order",
            columns(
                "order_id", "string", "customer.id", "string", "customer.loyalty.points", "int"));
    DynamicMessage m =
        DynamicMessage.newBuilder(order)
            .setField(f("order_id"), "o-1")
            .setField(f("extra_text"), "fragile")
            .setField(f("big"), 5L)
            .addRepeatedField(f("tags"), "a")
            .addRepeatedField(f("tags"), "b")
            .setField(f("signature"), ByteString.copyFromUtf8("sig"))
            .setField(f("customer"), customer("c-1", "gold", 7))
            .setField(f("note"), "n")
            .setField(f("card_token"), "t")
            .build();
    byte[] value = payload(schema, m);

    Object[] row = success(decoder.decodeWithRescued(value, 0, value.length));

    assertThat(row)
        .containsExactly(
            "o-1",
            new Object[] {"c-1", new Object[] {7}},
            "{\"big\":\"5\",\"customer\":{\"tier\":\"gold\"},\"note\":\"n\",\"card_token\":\"t\","
                + "\"tags\":[\"a\",\"b\"],\"signature\":\"c2ln\",\"extra_text\":\"fragile\"}");
    DynamicMessage onlyDeclared =
        DynamicMessage.newBuilder(order).setField(f("order_id"), "o-2").build();
    byte[] plain = payload(schema, onlyDeclared);
    assertThat(success(decoder.decodeWithRescued(plain, 0, plain.length)))
        .containsExactly("o-2", null, null);
  }

  @Test
  void theEvolutionFormReportsTheRescuedFieldsAsExtrasBesideTheDeclaredRow() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("order_id", "string", "customer.id", "string"));
    DynamicMessage m =
        DynamicMessage.newBuilder(order)
            .setField(f("order_id"), "o-1")
            .setField(f("big"), 5L)
            .setField(f("customer"), customer("c-1", "gold", 7))
            .build();
    byte[] value = payload(schema, m);

    ParseResult r = decoder.decodeWithExtras(value, 0, value.length);
    assertThat(success(r)).containsExactly("o-1", new Object[] {"c-1"});
    assertThat(((ParseResult.Success) r).extras().newFields()).isEmpty();
    assertThat(((ParseResult.Success) r).extras().rescued().toString())
        .isEqualTo("{\"big\":\"5\",\"customer\":{\"tier\":\"gold\",\"loyalty\":{\"points\":7}}}");
    byte[] plain =
        payload(schema, DynamicMessage.newBuilder(order).setField(f("order_id"), "o-2").build());
    ParseResult none = decoder.decodeWithExtras(plain, 0, plain.length);
    assertThat(success(none)).containsExactly("o-2", null);
    assertThat(((ParseResult.Success) none).extras()).isNull();
  }

  @Test
  void anUndeclaredAnyOfATypeTheSchemaDoesNotKnowFailsTheRescueNamingIt() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema, "com.example.Order", columns("order_id", "string"));
    DynamicMessage m =
        DynamicMessage.newBuilder(order)
            .setField(f("order_id"), "o-1")
            .setField(
                f("attachment"),
                Any.newBuilder()
                    .setTypeUrl("type.googleapis.com/other.Thing")
                    .setValue(ByteString.copyFromUtf8("x"))
                    .build())
            .build();
    byte[] value = payload(schema, m);

    assertThat(success(decoder.decode(value))).containsExactly("o-1");
    assertThat(failure(decoder.decodeWithRescued(value, 0, value.length)))
        .startsWith(
            "could not render the undeclared fields of com.example.Order as JSON for _rescued_data: ")
        .contains("other.Thing");
  }

  @Test
  void aWellKnownMessageDeclaredAsNestedColumnsReadsItsFields() {
    ProtobufRecordDecoder decoder =
        ProtobufRecordDecoder.forColumns(
            schema,
            "com.example.Order",
            columns(
                "event_time.seconds", "long", "event_time.nanos", "int", "coupon.value", "string"));
    DynamicMessage m =
        DynamicMessage.newBuilder(order)
            .setField(f("event_time"), Timestamp.newBuilder().setSeconds(12).setNanos(34).build())
            .build();

    assertThat(success(decoder.decode(payload(schema, m))))
        .containsExactly(new Object[] {12L, 34}, null);
  }

  private Descriptors.FieldDescriptor f(String name) {
    return order.findFieldByName(name);
  }

  private DynamicMessage customer(String id, String tier, int points) {
    Descriptor customer = type(schema, "com.example.Order.Customer");
    Descriptor loyalty = customer.findNestedTypeByName("Loyalty");
    return DynamicMessage.newBuilder(customer)
        .setField(customer.findFieldByName("id"), id)
        .setField(customer.findFieldByName("tier"), tier)
        .setField(
            customer.findFieldByName("loyalty"),
            DynamicMessage.newBuilder(loyalty)
                .setField(loyalty.findFieldByName("points"), points)
                .build())
        .build();
  }

  private DynamicMessage date(int year, int month, int day) {
    Descriptor date = f("ship_date").getMessageType();
    return DynamicMessage.newBuilder(date)
        .setField(date.findFieldByName("year"), year)
        .setField(date.findFieldByName("month"), month)
        .setField(date.findFieldByName("day"), day)
        .build();
  }

  private static LinkedHashMap<String, String> columns(String... nameTypePairs) {
    LinkedHashMap<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < nameTypePairs.length; i += 2) {
      m.put(nameTypePairs[i], nameTypePairs[i + 1]);
    }
    return m;
  }

  private static Object[] success(ParseResult r) {
    assertThat(r)
        .as(() -> r instanceof ParseResult.Failure f ? f.error() : "")
        .isInstanceOf(ParseResult.Success.class);
    return ((ParseResult.Success) r).row();
  }

  private static String failure(ParseResult r) {
    assertThat(r)
        .as(() -> r instanceof ParseResult.Success s ? Arrays.deepToString(s.row()) : "")
        .isInstanceOf(ParseResult.Failure.class);
    return ((ParseResult.Failure) r).error();
  }
}
