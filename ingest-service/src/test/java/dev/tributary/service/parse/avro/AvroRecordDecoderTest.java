package dev.tributary.service.parse.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.parse.DecoderUnavailableException;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** Resolution rules, nesting, keys, and every quarantine reason of the Avro decoder. */
class AvroRecordDecoderTest {
  private static final String ORDER_V1 =
      """
      {"type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "order_id", "type": "string"},
        {"name": "quantity", "type": "int"},
        {"name": "price", "type": "float"},
        {"name": "note", "type": ["null", "string"], "default": null},
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
          {"name": "name", "type": "string"},
          {"name": "tier", "type": {"type": "enum", "name": "Tier", "symbols": ["GOLD", "SILVER"]}},
          {"name": "address", "type": ["null", {"type": "record", "name": "Address", "fields": [
            {"name": "city", "type": "string"}, {"name": "zip", "type": "string"}]}]}]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "raw", "type": "bytes"}
      ]}""";

  private final Map<Integer, RegisteredSchema> registry = new HashMap<>();
  private final AtomicInteger lookups = new AtomicInteger();

  private SchemaSource source() {
    return id -> {
      lookups.incrementAndGet();
      RegisteredSchema s = registry.get(id);
      if (s == null) {
        throw new UnknownSchemaException(
            id, "schema id " + id + " is unknown to the test registry");
      }
      return s;
    };
  }

  private Schema register(int id, String schema) {
    registry.put(id, new RegisteredSchema(id, "AVRO", schema, List.of()));
    return new Schema.Parser().parse(schema);
  }

  private static LinkedHashMap<String, String> columns(String... nameTypes) {
    LinkedHashMap<String, String> c = new LinkedHashMap<>();
    for (int i = 0; i < nameTypes.length; i += 2) {
      c.put(nameTypes[i], nameTypes[i + 1]);
    }
    return c;
  }

  private AvroRecordDecoder decoder(LinkedHashMap<String, String> value) {
    return new AvroRecordDecoder(source(), value, new LinkedHashMap<>(), 1 << 20);
  }

  private static GenericRecord order(Schema schema) {
    Schema customerSchema = schema.getField("customer").schema();
    Schema addressSchema = customerSchema.getField("address").schema().getTypes().get(1);
    GenericRecord address = new GenericData.Record(addressSchema);
    address.put("city", "Lyon");
    address.put("zip", "69001");
    GenericRecord customer = new GenericData.Record(customerSchema);
    customer.put("name", "Ada");
    customer.put(
        "tier", new GenericData.EnumSymbol(customerSchema.getField("tier").schema(), "GOLD"));
    customer.put("address", address);
    GenericRecord r = new GenericData.Record(schema);
    r.put("order_id", "o-1");
    r.put("quantity", 3);
    r.put("price", 2.5f);
    r.put("note", null);
    r.put("customer", customer);
    r.put("tags", List.of("a", "b"));
    r.put("raw", ByteBuffer.wrap("héllo".getBytes(StandardCharsets.UTF_8)));
    return r;
  }

  private static Object[] row(ParseResult result) {
    assertThat(result).as("%s", result).isInstanceOf(ParseResult.Success.class);
    return ((ParseResult.Success) result).row();
  }

  private static String error(ParseResult result) {
    assertThat(result).as("%s", result).isInstanceOf(ParseResult.Failure.class);
    return ((ParseResult.Failure) result).error();
  }

  @Test
  void projectsTheDeclaredColumnsWithPromotionsNestingAndMissingFields() {
    Schema schema = register(5, ORDER_V1);
    AvroRecordDecoder decoder =
        decoder(
            columns(
                "order_id",
                "string",
                "quantity",
                "long",
                "price",
                "double",
                "note",
                "string",
                "customer.name",
                "string",
                "customer.tier",
                "string",
                "customer.address.city",
                "string",
                "raw",
                "string",
                "added_later",
                "int"));

    Object[] row =
        row(decoder.decode("orders", 1, 10, null, AvroWire.encode(5, schema, order(schema))));

    assertThat(row[0]).isEqualTo("o-1");
    assertThat(row[1]).isEqualTo(3L); // int -> long
    assertThat(row[2]).isEqualTo(2.5d); // float -> double
    assertThat(row[3]).isNull(); // a null of [null, string]
    assertThat((Object[]) row[4])
        .containsExactly("Ada", "GOLD", new Object[] {"Lyon"}); // enum -> string
    assertThat(row[5]).isEqualTo("héllo"); // bytes -> string
    assertThat(row[6]).isNull(); // not in the writer schema
    assertThat(decoder.schema().fieldNames())
        .containsExactly("order_id", "quantity", "price", "note", "customer", "raw", "added_later");
    assertThat(decoder.undeclaredValueFields(5)).containsExactly("customer.address.zip", "tags");
  }

  @Test
  void rowsHaveTheJavaValuesJsonGivesForTheSameColumns() {
    Schema schema =
        register(
            1,
            """
        {"type": "record", "name": "E", "fields": [
          {"name": "id", "type": "long"}, {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
          {"name": "c", "type": {"type": "record", "name": "C", "fields": [{"name": "n", "type": "string"}]}}]}""");
    GenericRecord c = new GenericData.Record(schema.getField("c").schema());
    c.put("n", "x");
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", 42L);
    r.put("at", 1_767_225_600_123L);
    r.put("c", c);
    LinkedHashMap<String, String> declared =
        columns("id", "long", "at", "timestamp", "c.n", "string");

    Object[] avro = row(decoder(declared).decode("t", 0, 0, null, AvroWire.encode(1, schema, r)));
    Object[] json =
        row(
            JsonRecordParser.forColumns(declared, 1 << 20)
                .parse(
                    "{\"id\":42,\"at\":\"2026-01-01T00:00:00.123Z\",\"c\":{\"n\":\"x\"}}"
                        .getBytes(StandardCharsets.UTF_8)));

    assertThat(Arrays.deepEquals(avro, json))
        .as("%s vs %s", Arrays.deepToString(avro), Arrays.deepToString(json))
        .isTrue();
    assertThat(Arrays.stream(avro).map(v -> v.getClass()).toList())
        .isEqualTo(Arrays.stream(json).map(v -> v.getClass()).toList());
  }

  @Test
  void aPlainLongReadsInTheDeclaredEpochUnit() {
    Schema schema =
        register(
            2,
            "{\"type\": \"record\", \"name\": \"E\", \"fields\": [{\"name\": \"at\", \"type\": \"long\"}]}");
    GenericRecord r = new GenericData.Record(schema);
    r.put("at", 1_767_225_600L);

    Object[] row =
        row(
            decoder(columns("at", "timestamp(seconds)"))
                .decode("t", 0, 0, null, AvroWire.encode(2, schema, r)));

    assertThat(row[0]).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Test
  void aUnionOfSeveralTypesConvertsEachBranchAndQuarantinesOnlyTheOneThatDoesNotFit() {
    Schema schema =
        register(
            3,
            """
        {"type": "record", "name": "E", "fields": [{"name": "v", "type": ["null", "int", "long", "string"]}]}""");
    AvroRecordDecoder decoder = decoder(columns("v", "long"));
    GenericRecord r = new GenericData.Record(schema);

    r.put("v", 7);
    assertThat(row(decoder.decode("t", 0, 0, null, AvroWire.encode(3, schema, r))))
        .containsExactly(7L);
    r.put("v", 8L);
    assertThat(row(decoder.decode("t", 0, 1, null, AvroWire.encode(3, schema, r))))
        .containsExactly(8L);
    r.put("v", "nine");
    assertThat(error(decoder.decode("t", 0, 2, null, AvroWire.encode(3, schema, r))))
        .isEqualTo(
            "t/0 offset 2: value: field 'v': writer schema id 3 has a string, which does not fit the declared long");
  }

  @Test
  void decodesTheKeyIntoItsColumnsAfterTheValueColumns() {
    Schema value =
        register(
            10,
            "{\"type\": \"record\", \"name\": \"V\", \"fields\": [{\"name\": \"n\", \"type\": \"int\"}]}");
    Schema recordKey =
        register(
            11,
            """
        {"type": "record", "name": "K", "fields": [{"name": "customer_id", "type": "string"},
          {"name": "region", "type": "string"}]}""");
    Schema stringKey = register(12, "\"string\"");
    GenericRecord v = new GenericData.Record(value);
    v.put("n", 1);
    GenericRecord k = new GenericData.Record(recordKey);
    k.put("customer_id", "c-9");
    k.put("region", "eu");
    AvroRecordDecoder decoder =
        new AvroRecordDecoder(
            source(), columns("n", "int"), columns("customer_id", "string"), 1 << 20);

    assertThat(decoder.schema().fieldNames()).containsExactly("n", "customer_id");
    assertThat(
            row(
                decoder.decode(
                    "t", 0, 0, AvroWire.encode(11, recordKey, k), AvroWire.encode(10, value, v))))
        .containsExactly(1, "c-9");
    assertThat(
            row(
                decoder.decode(
                    "t",
                    0,
                    1,
                    AvroWire.encode(12, stringKey, "c-10"),
                    AvroWire.encode(10, value, v))))
        .as("a primitive key schema fills the one declared key column")
        .containsExactly(1, "c-10");
    assertThat(row(decoder.decode("t", 0, 2, null, AvroWire.encode(10, value, v))))
        .containsExactly(1, null);
    assertThat(
            error(
                decoder.decode(
                    "t",
                    0,
                    3,
                    "plain".getBytes(StandardCharsets.UTF_8),
                    AvroWire.encode(10, value, v))))
        .startsWith("t/0 offset 3: key: bad magic byte 0x70");
  }

  @Test
  void parsesTheReferencedSchemasBeforeTheWriterSchema() {
    String customer =
        "{\"type\": \"record\", \"name\": \"Customer\", \"namespace\": \"shop\", \"fields\": ["
            + "{\"name\": \"name\", \"type\": \"string\"}]}";
    String order =
        "{\"type\": \"record\", \"name\": \"Order\", \"namespace\": \"shop\", \"fields\": ["
            + "{\"name\": \"buyer\", \"type\": \"shop.Customer\"}]}";
    registry.put(
        20,
        new RegisteredSchema(
            20,
            "AVRO",
            order,
            List.of(new RegisteredSchema.Reference("shop.Customer", "customer", 1, customer))));
    Schema.Parser parser = new Schema.Parser();
    parser.parse(customer);
    Schema schema = parser.parse(order);
    GenericRecord buyer = new GenericData.Record(schema.getField("buyer").schema());
    buyer.put("name", "Ada");
    GenericRecord r = new GenericData.Record(schema);
    r.put("buyer", buyer);

    Object[] row =
        row(
            decoder(columns("buyer.name", "string"))
                .decode("t", 0, 0, null, AvroWire.encode(20, schema, r)));

    assertThat((Object[]) row[0]).containsExactly("Ada");
  }

  @Test
  void compilesEachWriterSchemaOnce() {
    Schema schema =
        register(
            4,
            "{\"type\": \"record\", \"name\": \"E\", \"fields\": [{\"name\": \"n\", \"type\": \"int\"}]}");
    AvroRecordDecoder decoder = decoder(columns("n", "int"));
    GenericRecord r = new GenericData.Record(schema);
    for (int i = 0; i < 100; i++) {
      r.put("n", i);
      assertThat(row(decoder.decode("t", 0, i, null, AvroWire.encode(4, schema, r))))
          .containsExactly(i);
    }
    assertThat(lookups).hasValue(1);
  }

  @Test
  void quarantinesEveryKindOfBadRecordWithItsReason() {
    Schema schema =
        register(
            6,
            "{\"type\": \"record\", \"name\": \"E\", \"fields\": [{\"name\": \"n\", \"type\": \"string\"}]}");
    registry.put(
        8,
        new RegisteredSchema(
            8, "PROTOBUF", "syntax = \"proto3\"; message M { int32 n = 1; }", List.of()));
    registry.put(9, new RegisteredSchema(9, "AVRO", "{\"type\": \"recrd\"}", List.of()));
    GenericRecord r = new GenericData.Record(schema);
    r.put("n", "twelve");
    byte[] good = AvroWire.encode(6, schema, r);
    AvroRecordDecoder decoder =
        new AvroRecordDecoder(source(), columns("n", "int"), new LinkedHashMap<>(), 64);
    byte[] truncated = Arrays.copyOf(good, good.length - 2);
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    byte[] unknownId = good.clone();
    unknownId[4] = 7;
    byte[] protobufId = good.clone();
    protobufId[4] = 8;
    byte[] badSchemaId = good.clone();
    badSchemaId[4] = 9;

    assertThat(error(decoder.decode("t", 3, 1, null, null)))
        .isEqualTo("t/3 offset 1: value: record value is null (a tombstone)");
    assertThat(error(decoder.decode("t", 3, 2, null, new byte[65])))
        .isEqualTo("t/3 offset 2: value: record is 65 bytes, above max-record-size (64 bytes)");
    assertThat(error(decoder.decode("t", 3, 3, null, new byte[] {0, 0, 1})))
        .isEqualTo(
            "t/3 offset 3: value: 3 bytes,"
                + " shorter than the 5-byte Confluent wire header (magic byte 0 and a 4-byte schema id)");
    assertThat(
            error(decoder.decode("t", 3, 4, null, "{\"n\": 1}".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo(
            "t/3 offset 4: value: bad magic byte 0x7b (the Confluent wire format starts with 0x00); the record was not"
                + " written by a schema-registry serializer (it looks like JSON: use format.json)");
    assertThat(error(decoder.decode("t", 3, 5, null, unknownId)))
        .isEqualTo("t/3 offset 5: value: schema id 7 is unknown to the test registry");
    assertThat(error(decoder.decode("t", 3, 6, null, good)))
        .isEqualTo(
            "t/3 offset 6: value: field 'n': writer schema id 6 has a string, which does not fit the declared int");
    assertThat(error(decoder.decode("t", 3, 7, null, protobufId)))
        .isEqualTo(
            "t/3 offset 7: value: schema id 8 is a PROTOBUF schema, not Avro; format.avro reads Avro only");
    assertThat(error(decoder.decode("t", 3, 8, null, badSchemaId)))
        .startsWith("t/3 offset 8: value: schema id 9 is not a valid Avro schema: ");
    AvroRecordDecoder strings = decoder(columns("n", "string"));
    assertThat(error(strings.decode("t", 3, 9, null, truncated)))
        .startsWith(
            "t/3 offset 9: value: the bytes do not decode with writer schema id 6 (EOFException");
    assertThat(error(strings.decode("t", 3, 10, null, trailing)))
        .isEqualTo(
            "t/3 offset 10: value: the Avro body of"
                + " writer schema id 6 is followed by more bytes; a record holds exactly one Avro datum (is the schema id"
                + " right?)");
  }

  @Test
  void aHugeLengthInTheBodyIsQuarantinedNotAllocated() {
    register(
        6,
        "{\"type\": \"record\", \"name\": \"E\", \"fields\": [{\"name\": \"n\", \"type\": \"string\"}]}");
    // zig-zag varint of 2^31 - 2: a 2 GB string in a 10-byte record
    byte[] bytes = {0, 0, 0, 0, 6, (byte) 0xfc, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};

    assertThat(error(decoder(columns("n", "string")).decode("t", 0, 0, null, bytes)))
        .startsWith("t/0 offset 0: value: the bytes do not decode with writer schema id 6");
  }

  @Test
  void aRegistryThatIsDownFailsTheCallInsteadOfQuarantining() {
    AvroRecordDecoder decoder =
        new AvroRecordDecoder(
            id -> {
              throw new DecoderUnavailableException("registry down", null);
            },
            columns("n", "int"),
            new LinkedHashMap<>(),
            1 << 20);

    assertThatThrownBy(() -> decoder.decode("t", 0, 0, null, new byte[] {0, 0, 0, 0, 1, 2}))
        .isInstanceOf(DecoderUnavailableException.class)
        .hasMessage("registry down");
  }
}
