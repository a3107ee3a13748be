package dev.tributary.service.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The Avro schema derived from the output columns ({@link AvroRowSchema}) and the wire-format
 * values ({@link AvroRowEncoder}), checked against Avro's own reader and writer.
 */
class AvroRowEncoderTest {
  private static final StructType ADDRESS =
      StructType.of(
          StructField.nullable("city", PrimitiveType.STRING),
          new StructField("zip", PrimitiveType.INTEGER, false));
  private static final StructType CUSTOMER =
      StructType.of(
          new StructField("name", PrimitiveType.STRING, false),
          StructField.nullable("address", ADDRESS));

  /** Every column type the pipeline has, nullable and not. */
  private static final StructType EVERY_TYPE =
      StructType.of(
          new StructField("order_id", PrimitiveType.STRING, false),
          StructField.nullable("quantity", PrimitiveType.LONG),
          StructField.nullable("items", PrimitiveType.INTEGER),
          StructField.nullable("small", PrimitiveType.SHORT),
          StructField.nullable("tiny", PrimitiveType.BYTE),
          StructField.nullable("price", PrimitiveType.DOUBLE),
          StructField.nullable("ratio", PrimitiveType.FLOAT),
          StructField.nullable("paid", PrimitiveType.BOOLEAN),
          StructField.nullable("amount", new DecimalType(12, 2)),
          StructField.nullable("day", PrimitiveType.DATE),
          StructField.nullable("at", PrimitiveType.TIMESTAMP),
          StructField.nullable("local_at", PrimitiveType.TIMESTAMP_NTZ),
          StructField.nullable("blob", PrimitiveType.BINARY),
          StructField.nullable("tags", new ArrayType(PrimitiveType.STRING, true)),
          StructField.nullable(
              "counts", new MapType(PrimitiveType.STRING, PrimitiveType.LONG, false)),
          StructField.nullable("by_day", new MapType(PrimitiveType.DATE, PrimitiveType.LONG, true)),
          StructField.nullable("customer", CUSTOMER),
          StructField.nullable("history", new ArrayType(ADDRESS, false)));

  private static final Instant AT = Instant.parse("2026-01-02T03:04:05.123456Z");
  private static final LocalDateTime LOCAL_AT = LocalDateTime.parse("2026-01-02T03:04:05.654321");

  private static Object[] fullRow() {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("a", 1L);
    counts.put("b", 2L);
    Map<LocalDate, Long> byDay = new LinkedHashMap<>();
    byDay.put(LocalDate.of(2026, 1, 1), 7L);
    byDay.put(LocalDate.of(2026, 1, 2), null);
    return new Object[] {
      "o-1",
      42L,
      7,
      (short) -3,
      (byte) 9,
      1.5d,
      0.25f,
      true,
      new BigDecimal("-1234.56"),
      LocalDate.of(2026, 3, 4),
      AT,
      LOCAL_AT,
      new byte[] {1, 2, 3},
      Arrays.asList("x", null, "y"),
      counts,
      byDay,
      new Object[] {"Ann", new Object[] {"Paris", 75001}},
      List.of(new Object[] {null, 1}, new Object[] {"Lyon", 69001})
    };
  }

  private static GenericData data() {
    GenericData data = new GenericData();
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    data.addLogicalTypeConversion(new TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
    return data;
  }

  private static GenericRecord decode(Schema schema, byte[] value) throws Exception {
    assertThat(ConfluentWireFormat.headerProblem(value, 0, value.length)).isNull();
    return new GenericDatumReader<GenericRecord>(schema, schema, data())
        .read(
            null,
            DecoderFactory.get()
                .binaryDecoder(
                    value,
                    ConfluentWireFormat.HEADER_SIZE,
                    value.length - ConfluentWireFormat.HEADER_SIZE,
                    null));
  }

  @Test
  void derivesATypeForEveryColumnTypeNullableAsAUnionWithNullDefaultNull() {
    Schema schema = AvroRowSchema.of(EVERY_TYPE);

    assertThat(schema.getFullName()).isEqualTo("tributary.Row");
    assertThat(schema.getField("order_id").schema().getType()).isEqualTo(Schema.Type.STRING);
    assertThat(schema.getField("order_id").hasDefaultValue()).isFalse();
    assertThat(schema.getField("quantity").schema().toString()).isEqualTo("[\"null\",\"long\"]");
    assertThat(schema.getField("quantity").defaultVal())
        .isEqualTo(org.apache.avro.JsonProperties.NULL_VALUE);
    Map<String, String> types = new LinkedHashMap<>();
    for (Schema.Field f : schema.getFields()) {
      if (f.schema().isUnion()) {
        types.put(f.name(), f.schema().getTypes().get(1).toString());
      }
    }
    assertThat(types)
        .containsEntry("items", "\"int\"")
        .containsEntry("small", "\"int\"")
        .containsEntry("tiny", "\"int\"")
        .containsEntry("price", "\"double\"")
        .containsEntry("ratio", "\"float\"")
        .containsEntry("paid", "\"boolean\"")
        .containsEntry(
            "amount",
            "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":12,\"scale\":2}")
        .containsEntry("day", "{\"type\":\"int\",\"logicalType\":\"date\"}")
        .containsEntry("at", "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}")
        .containsEntry("local_at", "{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}")
        .containsEntry("blob", "\"bytes\"")
        .containsEntry("tags", "{\"type\":\"array\",\"items\":[\"null\",\"string\"]}")
        .containsEntry("counts", "{\"type\":\"map\",\"values\":\"long\"}")
        .containsEntry("by_day", "{\"type\":\"map\",\"values\":[\"null\",\"long\"]}");
    Schema customer = schema.getField("customer").schema().getTypes().get(1);
    assertThat(customer.getFullName()).isEqualTo("tributary.row.customer");
    assertThat(customer.getField("address").schema().getTypes().get(1).getFullName())
        .isEqualTo("tributary.row.customer.address");
    assertThat(schema.getField("history").schema().getTypes().get(1).getElementType().getFullName())
        .isEqualTo("tributary.row.history");
    assertThat(new Schema.Parser().parse(schema.toString()))
        .as("the text registered parses back to the same schema")
        .isEqualTo(schema);
    assertThat(AvroRowSchema.of(EVERY_TYPE).toString())
        .as("the same columns give the same text: the registry answers with the same id")
        .isEqualTo(schema.toString());
  }

  @Test
  void encodesTheWireHeaderAndARowAvroDecodesToTheSameValues() throws Exception {
    Schema schema = AvroRowSchema.of(EVERY_TYPE);
    byte[] value = new AvroRowEncoder(EVERY_TYPE, 4242).encode(fullRow());

    assertThat(value[0]).isEqualTo(ConfluentWireFormat.MAGIC);
    assertThat(ConfluentWireFormat.schemaId(value, 0)).isEqualTo(4242);
    GenericRecord r = decode(schema, value);
    assertThat(r.get("order_id").toString()).isEqualTo("o-1");
    assertThat(r.get("quantity")).isEqualTo(42L);
    assertThat(r.get("items")).isEqualTo(7);
    assertThat(r.get("small")).isEqualTo(-3);
    assertThat(r.get("tiny")).isEqualTo(9);
    assertThat(r.get("price")).isEqualTo(1.5d);
    assertThat(r.get("ratio")).isEqualTo(0.25f);
    assertThat(r.get("paid")).isEqualTo(true);
    assertThat(r.get("amount")).isEqualTo(new BigDecimal("-1234.56"));
    assertThat(r.get("day")).isEqualTo(LocalDate.of(2026, 3, 4));
    assertThat(r.get("at")).isEqualTo(AT);
    assertThat(r.get("local_at")).isEqualTo(LOCAL_AT);
    assertThat(((ByteBuffer) r.get("blob")).array()).containsExactly(1, 2, 3);
    assertThat((List<?>) r.get("tags"))
        .extracting(o -> o == null ? null : o.toString())
        .containsExactly("x", null, "y");
    Map<String, Object> counts = new LinkedHashMap<>();
    ((Map<?, ?>) r.get("counts")).forEach((k, v) -> counts.put(k.toString(), v));
    assertThat(counts).containsExactly(Map.entry("a", 1L), Map.entry("b", 2L));
    Map<String, Object> byDay = new LinkedHashMap<>();
    ((Map<?, ?>) r.get("by_day")).forEach((k, v) -> byDay.put(k.toString(), v));
    assertThat(byDay).containsEntry("2026-01-01", 7L).containsEntry("2026-01-02", null);
    GenericRecord customer = (GenericRecord) r.get("customer");
    assertThat(customer.get("name").toString()).isEqualTo("Ann");
    GenericRecord address = (GenericRecord) customer.get("address");
    assertThat(address.get("city").toString()).isEqualTo("Paris");
    assertThat(address.get("zip")).isEqualTo(75001);
    List<?> history = (List<?>) r.get("history");
    assertThat(((GenericRecord) history.get(0)).get("city")).isNull();
    assertThat(((GenericRecord) history.get(1)).get("zip")).isEqualTo(69001);
  }

  @Test
  void writesTheBytesAvrosOwnWriterWritesForTheSameRecord() throws Exception {
    Schema schema = AvroRowSchema.of(EVERY_TYPE);
    byte[] ours = new AvroRowEncoder(EVERY_TYPE, 1).encode(fullRow());
    GenericRecord decoded = decode(schema, ours);

    ByteArrayOutputStream theirs = new ByteArrayOutputStream();
    theirs.writeBytes(ConfluentWireFormat.header(1));
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(theirs, null);
    new GenericDatumWriter<GenericRecord>(schema, data()).write(decoded, encoder);
    encoder.flush();

    assertThat(ours).isEqualTo(theirs.toByteArray());
  }

  @Test
  void nullsInNullableColumnsAreTheNullBranchAndANullInARequiredColumnIsNamed() throws Exception {
    Object[] row = new Object[EVERY_TYPE.size()];
    row[0] = "o-2";
    row[16] = new Object[] {"Bo", null};
    GenericRecord r =
        decode(AvroRowSchema.of(EVERY_TYPE), new AvroRowEncoder(EVERY_TYPE, 3).encode(row));
    assertThat(r.get("order_id").toString()).isEqualTo("o-2");
    for (int i = 1; i < EVERY_TYPE.size(); i++) {
      if (i != 16) {
        assertThat(r.get(i)).as(EVERY_TYPE.fields().get(i).name()).isNull();
      }
    }
    assertThat(((GenericRecord) r.get("customer")).get("address")).isNull();

    Object[] noName = row.clone();
    noName[16] = new Object[] {null, null};
    assertThatThrownBy(() -> new AvroRowEncoder(EVERY_TYPE, 3).encode(noName))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("column 'customer.name' is not nullable but the row holds null there");
  }

  @Test
  void columnNamesThatAreNotAvroNamesAreProblemsNamingThem() {
    StructType output =
        StructType.of(
            StructField.nullable("ok_1", PrimitiveType.STRING),
            StructField.nullable("order-id", PrimitiveType.STRING),
            StructField.nullable("1st", PrimitiveType.STRING),
            StructField.nullable(
                "nested", StructType.of(StructField.nullable("a b", PrimitiveType.LONG))));

    String rule =
        "' is not an Avro name (a letter or _, then letters, digits or _), so it cannot be a field"
            + " of the value's record; write value: json for this pipeline";
    assertThat(AvroRowSchema.problems(output))
        .containsExactly(
            "column 'order-id" + rule, "column '1st" + rule, "column 'nested.a b" + rule);
    assertThatThrownBy(() -> AvroRowSchema.of(output))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'order-id' is not an Avro name");
    assertThat(AvroRowSchema.problems(EVERY_TYPE)).isEmpty();
  }
}
