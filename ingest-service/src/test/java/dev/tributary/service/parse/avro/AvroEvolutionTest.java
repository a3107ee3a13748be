package dev.tributary.service.parse.avro;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import dev.tributary.table.types.PrimitiveType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Schema evolution of the Avro decoder: the rescued JSON per Avro type, new fields' column types,
 * misfits.
 */
class AvroEvolutionTest {
  private static final String ALL_TYPES =
      """
      {"type": "record", "name": "E", "namespace": "t", "fields": [
        {"name": "id", "type": "string"},
        {"name": "i", "type": "int"}, {"name": "l", "type": "long"},
        {"name": "f", "type": "float"}, {"name": "d", "type": "double"}, {"name": "nan", "type": "double"},
        {"name": "b", "type": "boolean"}, {"name": "s", "type": "string"},
        {"name": "e", "type": {"type": "enum", "name": "Tier", "symbols": ["GOLD", "SILVER"]}},
        {"name": "u", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "raw", "type": "bytes"},
        {"name": "fx", "type": {"type": "fixed", "name": "F2", "size": 2}},
        {"name": "ts_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "ts_us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}},
        {"name": "opt", "type": ["null", "long"], "default": null},
        {"name": "gone", "type": ["null", "string"], "default": null},
        {"name": "arr", "type": {"type": "array", "items": "int"}},
        {"name": "m", "type": {"type": "map", "values": "string"}},
        {"name": "rec", "type": {"type": "record", "name": "R", "fields": [
          {"name": "x", "type": "int"}, {"name": "y", "type": ["null", "string"]}]}}
      ]}""";

  private static final String RESCUED_ALL =
      "{\"i\":7,\"l\":9000000000,\"f\":1.5,\"d\":2.25,\"nan\":\"NaN\","
          + "\"b\":true,\"s\":\"hé\",\"e\":\"GOLD\",\"u\":\"6a7b1c2d-0000-4000-8000-000000000001\","
          + "\"raw\":\"AQL/\",\"fx\":\"AAE=\",\"ts_ms\":\"2026-01-01T00:00:00.123Z\","
          + "\"ts_us\":\"2026-01-01T00:00:00.123456Z\",\"lts\":\"2026-01-01T00:00:00.123\",\"day\":\"2026-01-31\","
          + "\"tm\":\"10:15:30.250\",\"dec\":\"-12.30\",\"opt\":5,\"arr\":[1,2],\"m\":{\"k\":\"v\"},"
          + "\"rec\":{\"x\":1,\"y\":null}}";

  private final Map<Integer, RegisteredSchema> registry = new HashMap<>();

  private SchemaSource source() {
    return id -> {
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

  private AvroRecordDecoder decoder(String... nameTypes) {
    return new AvroRecordDecoder(source(), columns(nameTypes), new LinkedHashMap<>(), 1 << 20);
  }

  private static ParseResult.Success success(ParseResult r) {
    assertThat(r).as("%s", r).isInstanceOf(ParseResult.Success.class);
    return (ParseResult.Success) r;
  }

  private static String error(ParseResult r) {
    assertThat(r).as("%s", r).isInstanceOf(ParseResult.Failure.class);
    return ((ParseResult.Failure) r).error();
  }

  private static GenericRecord allTypes(Schema schema) {
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", "o-1");
    r.put("i", 7);
    r.put("l", 9_000_000_000L);
    r.put("f", 1.5f);
    r.put("d", 2.25d);
    r.put("nan", Double.NaN);
    r.put("b", true);
    r.put("s", "hé");
    r.put("e", new GenericData.EnumSymbol(schema.getField("e").schema(), "GOLD"));
    r.put("u", "6a7b1c2d-0000-4000-8000-000000000001");
    r.put("raw", ByteBuffer.wrap(new byte[] {1, 2, (byte) 0xff}));
    r.put("fx", new GenericData.Fixed(schema.getField("fx").schema(), new byte[] {0, 1}));
    r.put("ts_ms", 1_767_225_600_123L);
    r.put("ts_us", 1_767_225_600_123_456L);
    r.put("lts", 1_767_225_600_123L);
    r.put("day", 20_484); // 2026-01-31
    r.put("tm", (10 * 3600 + 15 * 60 + 30) * 1000 + 250);
    Schema dec = schema.getField("dec").schema();
    r.put(
        "dec",
        new Conversions.DecimalConversion()
            .toBytes(new BigDecimal("-12.30"), dec, LogicalTypes.decimal(6, 2)));
    r.put("opt", 5L);
    r.put("gone", null);
    r.put("arr", List.of(1, 2));
    r.put("m", Map.of("k", "v"));
    GenericRecord rec = new GenericData.Record(schema.getField("rec").schema());
    rec.put("x", 1);
    rec.put("y", null);
    r.put("rec", rec);
    return r;
  }

  @Test
  void rescuesEveryUndeclaredWriterFieldAsJsonWithLogicalTypesRendered() {
    Schema schema = register(3, ALL_TYPES);
    AvroRecordDecoder decoder = decoder("id", "string").withEvolution(true, false);

    ParseResult.Success s =
        success(decoder.decode("t", 0, 1, null, AvroWire.encode(3, schema, allTypes(schema))));

    assertThat(s.row()).containsExactly("o-1");
    assertThat(s.extras().newFields()).isEmpty();
    // Key order is the writer's; the null of 'gone' is not rescued (nothing is lost).
    assertThat(s.extras().rescued().toString()).isEqualTo(RESCUED_ALL);
  }

  @Test
  void withoutEvolutionTheSameRecordHasNoExtras() {
    Schema schema = register(3, ALL_TYPES);
    AvroRecordDecoder plain = decoder("id", "string");

    assertThat(plain.withEvolution(false, false)).isSameAs(plain);
    ParseResult.Success s =
        success(plain.decode("t", 0, 1, null, AvroWire.encode(3, schema, allTypes(schema))));
    assertThat(s.extras()).isNull();
  }

  @Test
  void rescuesFieldsInsideDeclaredRecordsInTheirShape() {
    Schema schema =
        register(
            4,
            """
        {"type": "record", "name": "O", "fields": [
          {"name": "id", "type": "string"}, {"name": "tier", "type": "string"},
          {"name": "customer", "type": ["null", {"type": "record", "name": "C", "fields": [
            {"name": "name", "type": "string"}, {"name": "vip", "type": "boolean"},
            {"name": "address", "type": {"type": "record", "name": "A", "fields": [
              {"name": "city", "type": "string"}, {"name": "zip", "type": "string"}]}}]}]}]}""");
    Schema customer = schema.getField("customer").schema().getTypes().get(1);
    GenericRecord address = new GenericData.Record(customer.getField("address").schema());
    address.put("city", "Lyon");
    address.put("zip", "69001");
    GenericRecord c = new GenericData.Record(customer);
    c.put("name", "b");
    c.put("vip", true);
    c.put("address", address);
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", "o1");
    r.put("tier", "gold");
    r.put("customer", c);

    ParseResult.Success s =
        success(
            decoder("id", "string", "customer.name", "string", "customer.address.city", "string")
                .withEvolution(true, false)
                .decode("t", 0, 1, null, AvroWire.encode(4, schema, r)));

    assertThat(s.row()).containsExactly("o1", new Object[] {"b", new Object[] {"Lyon"}});
    assertThat(s.extras().rescued().toString())
        .isEqualTo(
            "{\"tier\":\"gold\",\"customer\":{\"vip\":true,\"address\":{\"zip\":\"69001\"}}}");
  }

  @Test
  void aWriterTypeThatDoesNotFitIsRescuedWithTheColumnNullOrQuarantinedWithoutRescue() {
    Schema v4 =
        register(
            9,
            """
        {"type": "record", "name": "O", "fields": [
          {"name": "id", "type": "string"}, {"name": "amount", "type": "string"},
          {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3}},
          {"name": "c", "type": "string"}]}""");
    GenericRecord r = new GenericData.Record(v4);
    r.put("id", "o9");
    r.put("amount", "60 EUR");
    r.put(
        "price",
        new Conversions.DecimalConversion()
            .toBytes(
                new BigDecimal("1.234"),
                v4.getField("price").schema(),
                LogicalTypes.decimal(9, 3)));
    r.put("c", "flat");
    byte[] bytes = AvroWire.encode(9, v4, r);
    String[] declared = {
      "id", "string", "amount", "long", "price", "decimal(8,2)", "c.n", "string"
    };

    ParseResult.Success s =
        success(decoder(declared).withEvolution(true, false).decode("t", 0, 1, null, bytes));
    assertThat(s.row()).containsExactly("o9", null, null, null);
    assertThat(s.extras().rescued().toString())
        .isEqualTo("{\"amount\":\"60 EUR\",\"price\":\"1.234\",\"c\":\"flat\"}");

    // Without rescue (add-columns only) the record is quarantined with the reason, as without
    // evolution.
    assertThat(error(decoder(declared).withEvolution(false, true).decode("t", 0, 1, null, bytes)))
        .isEqualTo(
            "t/0 offset 1: value: field 'amount': writer schema id 9 has a string, which does not fit the"
                + " declared long");
    assertThat(error(decoder(declared).decode("t", 0, 1, null, bytes)))
        .isEqualTo(
            error(decoder(declared).withEvolution(false, true).decode("t", 0, 1, null, bytes)));
  }

  @Test
  void newTopLevelFieldsCarryColumnTypesMappedFromAvro() {
    Schema schema = register(3, ALL_TYPES);
    ParseResult.Success s =
        success(
            decoder("id", "string", "rec.x", "int")
                .withEvolution(false, true)
                .decode("t", 0, 1, null, AvroWire.encode(3, schema, allTypes(schema))));

    Map<String, DecodedExtras.NewField> byName = new LinkedHashMap<>();
    for (DecodedExtras.NewField f : s.extras().newFields()) {
      byName.put(f.name(), f);
    }
    assertThat(byName.keySet())
        .containsExactly(
            "i", "l", "f", "d", "b", "s", "e", "u", "raw", "fx", "ts_ms", "ts_us", "lts", "day",
            "tm", "dec", "opt", "arr", "m"); // nan: no column holds it; gone: null
    assertField(byName.get("i"), PrimitiveType.LONG, 7L, false);
    assertField(byName.get("l"), PrimitiveType.LONG, 9_000_000_000L, false);
    assertField(byName.get("f"), PrimitiveType.DOUBLE, 1.5d, false);
    assertField(byName.get("d"), PrimitiveType.DOUBLE, 2.25d, false);
    assertField(byName.get("b"), PrimitiveType.BOOLEAN, true, false);
    assertField(byName.get("s"), PrimitiveType.STRING, "hé", false);
    assertField(byName.get("e"), PrimitiveType.STRING, "GOLD", false);
    assertField(
        byName.get("u"), PrimitiveType.STRING, "6a7b1c2d-0000-4000-8000-000000000001", false);
    assertField(byName.get("raw"), PrimitiveType.STRING, "AQL/", false);
    assertField(byName.get("ts_ms"), PrimitiveType.STRING, "2026-01-01T00:00:00.123Z", false);
    assertField(byName.get("ts_us"), PrimitiveType.STRING, "2026-01-01T00:00:00.123456Z", false);
    assertField(byName.get("day"), PrimitiveType.STRING, "2026-01-31", false);
    assertField(byName.get("dec"), PrimitiveType.STRING, "-12.30", false);
    assertField(byName.get("opt"), PrimitiveType.LONG, 5L, false);
    assertField(byName.get("arr"), PrimitiveType.STRING, "[1,2]", true);
    assertField(byName.get("m"), PrimitiveType.STRING, "{\"k\":\"v\"}", true);
    assertThat(s.extras().rescued())
        .isNull(); // rescue is off: NaN and rec.y are dropped, as JSON's path does
    assertThat(s.row()).containsExactly("o-1", new Object[] {1});

    // With rescue too, what no new column takes is rescued: NaN, and the fields of declared
    // records.
    ParseResult.Success both =
        success(
            decoder("id", "string", "rec.x", "int")
                .withEvolution(true, true)
                .decode("t", 0, 1, null, AvroWire.encode(3, schema, allTypes(schema))));
    assertThat(both.extras().rescued().toString()).isEqualTo("{\"nan\":\"NaN\"}");
  }

  @Test
  void aRemovedFieldReadsNullAndTheHeaderIsCheckedAsWithoutEvolution() {
    Schema v3 =
        register(
            11,
            """
        {"type": "record", "name": "O", "fields": [{"name": "id", "type": "string"}]}""");
    GenericRecord r = new GenericData.Record(v3);
    r.put("id", "o3");
    AvroRecordDecoder d = decoder("id", "string", "amount", "long").withEvolution(true, true);

    ParseResult.Success s = success(d.decode("t", 0, 1, null, AvroWire.encode(11, v3, r)));
    assertThat(s.row()).containsExactly("o3", null);
    assertThat(s.extras()).isNull();
    assertThat(error(d.decode("t", 0, 2, null, "{}".getBytes(StandardCharsets.UTF_8))))
        .startsWith("t/0 offset 2: value: ");
    assertThat(error(d.decode("t", 0, 3, null, AvroWire.encode(12, v3, r))))
        .contains("schema id 12");
  }

  private static void assertField(
      DecodedExtras.NewField f, PrimitiveType type, Object value, boolean jsonText) {
    assertThat(f.type()).as(f.name()).isEqualTo(type);
    assertThat(f.value()).as(f.name()).isEqualTo(value);
    assertThat(f.jsonText()).as(f.name()).isEqualTo(jsonText);
  }
}
