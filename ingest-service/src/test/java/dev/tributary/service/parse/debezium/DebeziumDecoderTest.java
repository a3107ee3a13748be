package dev.tributary.service.parse.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.EnvelopeSpec;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.avro.AvroWire;
import dev.tributary.service.parse.avro.SchemaSource;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import dev.tributary.table.types.PrimitiveType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** Debezium change events, JSON (with and without the converter's schema) and Avro, every op. */
class DebeziumDecoderTest {
  private static final long TS = 1_700_000_000_123L;

  private static LinkedHashMap<String, String> row() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "long");
    columns.put("name", "string");
    columns.put("address.city", "string");
    return columns;
  }

  private static DebeziumDecoder json(EnvelopeSpec.OnTruncate onTruncate) {
    return DebeziumDecoder.json("customers", row(), 1 << 20, onTruncate);
  }

  private static ParseResult decode(DebeziumDecoder decoder, String value) {
    return decoder.decode(
        "db.public.customers", 2, 41, null, value.getBytes(StandardCharsets.UTF_8));
  }

  private static Object[] rowOf(ParseResult result) {
    assertThat(result).isInstanceOf(ParseResult.Success.class);
    return ((ParseResult.Success) result).row();
  }

  private static String event(String op, String before, String after) {
    return "{\"before\":"
        + before
        + ",\"after\":"
        + after
        + ",\"source\":{\"version\":\"2.5.0\",\"connector\":\"postgresql\",\"ts_ms\":"
        + TS
        + ",\"snapshot\":\"false\",\"lsn\":123},\"op\":\""
        + op
        + "\",\"ts_ms\":"
        + (TS + 50)
        + ",\"transaction\":{\"id\":\"571\",\"total_order\":1,\"data_collection_order\":1}}";
  }

  private static final String ADA = "{\"id\":1,\"name\":\"Ada\",\"address\":{\"city\":\"Paris\"}}";
  private static final String ADA2 =
      "{\"id\":1,\"name\":\"Ada L\",\"address\":{\"city\":\"Lyon\"}}";

  @Test
  void theRowComesFromAfterWithTheOperationAndTheSourceTime() {
    DebeziumDecoder decoder = json(EnvelopeSpec.OnTruncate.FAIL);
    assertThat(decoder.schema().fieldNames())
        .containsExactly("id", "name", "address", "_op", "_source_ts");
    assertThat(rowOf(decode(decoder, event("c", "null", ADA))))
        .containsExactly(1L, "Ada", new Object[] {"Paris"}, "c", Instant.ofEpochMilli(TS));
    assertThat(rowOf(decode(decoder, event("u", ADA, ADA2))))
        .containsExactly(1L, "Ada L", new Object[] {"Lyon"}, "u", Instant.ofEpochMilli(TS));
    assertThat(rowOf(decode(decoder, event("r", "null", ADA))))
        .containsExactly(1L, "Ada", new Object[] {"Paris"}, "r", Instant.ofEpochMilli(TS));
  }

  @Test
  void aDeleteTakesTheRowFromBefore() {
    assertThat(rowOf(decode(json(EnvelopeSpec.OnTruncate.FAIL), event("d", ADA2, "null"))))
        .containsExactly(1L, "Ada L", new Object[] {"Lyon"}, "d", Instant.ofEpochMilli(TS));
  }

  @Test
  void readsTheJsonConvertersSchemaAndPayloadForm() {
    String wrapped =
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"field\":\"before\"}],"
            + "\"optional\":false,\"name\":\"db.public.customers.Envelope\"},\"payload\":"
            + event("u", ADA, ADA2)
            + "}";
    assertThat(rowOf(decode(json(EnvelopeSpec.OnTruncate.FAIL), wrapped)))
        .containsExactly(1L, "Ada L", new Object[] {"Lyon"}, "u", Instant.ofEpochMilli(TS));
    String malformed = "{\"schema\":{\"type\":\"struct\"},\"payload\":{\"after\":" + ADA + "}}";
    assertThat(decode(json(EnvelopeSpec.OnTruncate.FAIL), malformed))
        .isEqualTo(
            ParseResult.failure(
                "Debezium change event: payload.op is missing or null; a change event has op c,"
                    + " u, d, r or t (is this topic written by a Debezium connector, with envelope:"
                    + " debezium meant for it?)"));
  }

  @Test
  void theSourceTimeInMicrosecondsWinsAndNoSourceLeavesItNull() {
    String micros =
        "{\"after\":" + ADA + ",\"source\":{\"ts_ms\":1,\"ts_us\":1700000000123456},\"op\":\"c\"}";
    assertThat(rowOf(decode(json(EnvelopeSpec.OnTruncate.FAIL), micros))[4])
        .isEqualTo(Instant.parse("2023-11-14T22:13:20.123456Z"));
    String noSource = "{\"after\":" + ADA + ",\"op\":\"c\",\"ts_ms\":" + TS + "}";
    assertThat(rowOf(decode(json(EnvelopeSpec.OnTruncate.FAIL), noSource))[4]).isNull();
  }

  @Test
  void aTruncateFailsTheBatchNamingTheRecordUnlessSkipped() {
    String truncate = event("t", "null", "null");
    assertThatThrownBy(() -> decode(json(EnvelopeSpec.OnTruncate.FAIL), truncate))
        .isInstanceOf(TruncateEventException.class)
        .hasMessage(
            "Pipeline customers: db.public.customers/2 offset 41 is a Debezium truncate event (op"
                + " t): the source table was emptied, which this table cannot follow row by row;"
                + " to go on, set format.json.on-truncate: skip (the event is skipped and counted,"
                + " the table keeps its rows), or empty the table and restart the pipeline from a"
                + " new snapshot");
    assertThat(decode(json(EnvelopeSpec.OnTruncate.SKIP), truncate))
        .isEqualTo(
            ParseResult.skipped(
                "truncate event at db.public.customers/2 offset 41 (on-truncate: skip)"));
  }

  @Test
  void controlEventsAreSkippedNotTurnedIntoRows() {
    DebeziumDecoder decoder = json(EnvelopeSpec.OnTruncate.FAIL);
    assertThat(
            decode(
                decoder,
                "{\"status\":\"BEGIN\",\"id\":\"571\",\"event_count\":null,"
                    + "\"data_collections\":null}"))
        .isEqualTo(ParseResult.skipped("transaction metadata event (status BEGIN)"));
    assertThat(
            decode(
                decoder,
                "{\"status\":\"END\",\"id\":\"571\",\"event_count\":2,\"data_collections\":"
                    + "[{\"data_collection\":\"s1.a\",\"event_count\":2}]}"))
        .isEqualTo(ParseResult.skipped("transaction metadata event (status END)"));
    assertThat(decode(decoder, "{\"ts_ms\":" + TS + "}"))
        .isEqualTo(ParseResult.skipped("heartbeat event"));
    assertThat(
            decode(
                decoder,
                "{\"source\":{\"ts_ms\":1},\"databaseName\":\"inventory\",\"ddl\":\"CREATE TABLE"
                    + " t (id INT)\",\"tableChanges\":[]}"))
        .isEqualTo(ParseResult.skipped("schema change event"));
  }

  @Test
  void aTombstoneOfAnAppendingPipelineIsSkipped() {
    ParseResult result = json(EnvelopeSpec.OnTruncate.FAIL).decode("t", 0, 1, null, null);
    assertThat(result).isInstanceOf(ParseResult.Skipped.class);
    assertThat(((ParseResult.Skipped) result).reason()).startsWith("tombstone");
    assertThat(
            decode(
                json(EnvelopeSpec.OnTruncate.FAIL),
                "{\"schema\":{\"type\":\"struct\"},\"payload\":null}"))
        .isInstanceOf(ParseResult.Skipped.class);
  }

  @Test
  void aMalformedEventIsAFailureNamingTheField() {
    DebeziumDecoder decoder = json(EnvelopeSpec.OnTruncate.FAIL);
    assertThat(decode(decoder, "{\"after\":" + ADA + ",\"source\":{\"ts_ms\":1}}"))
        .isEqualTo(
            ParseResult.failure(
                "Debezium change event: op is missing or null; a change event has op c, u, d, r"
                    + " or t (is this topic written by a Debezium connector, with envelope:"
                    + " debezium meant for it?)"));
    assertThat(decode(decoder, event("c", "null", "null")))
        .isEqualTo(
            ParseResult.failure(
                "Debezium change event: after is missing or null for op 'c'; a create, update or"
                    + " snapshot read carries the new row in after"));
    assertThat(decode(decoder, event("d", "null", "null")))
        .asString()
        .contains("before is missing or null for op 'd'");
    assertThat(decode(decoder, event("x", "null", ADA)))
        .isEqualTo(
            ParseResult.failure(
                "Debezium change event: op 'x' is not one of c (create), u (update), d (delete),"
                    + " r (snapshot read), t (truncate)"));
    ParseResult wrongType = decode(decoder, event("c", "null", "5"));
    assertThat(wrongType).isInstanceOf(ParseResult.Failure.class);
    assertThat(((ParseResult.Failure) wrongType).error()).contains("after");
    ParseResult wrongField = decode(decoder, event("c", "null", "{\"id\":\"one\"}"));
    assertThat(((ParseResult.Failure) wrongField).error()).contains("after.id");
  }

  @Test
  void aTombstonesKeyFillsTheRowsColumnsBareOrWrapped() {
    DebeziumDecoder decoder = json(EnvelopeSpec.OnTruncate.FAIL);
    List<String> key = List.of("id");
    assertThat(rowOf(decoder.decodeKey("t", 0, 1, bytes("{\"id\":7}"), key)))
        .containsExactly(7L, null, null, null, null);
    assertThat(
            rowOf(
                decoder.decodeKey(
                    "t",
                    0,
                    1,
                    bytes(
                        "{\"schema\":{\"type\":\"struct\",\"fields\":[]},\"payload\":{\"id\":8}}"),
                    key)))
        .containsExactly(8L, null, null, null, null);
    assertThat(rowOf(decoder.decodeKey("t", 0, 1, bytes("9"), key)))
        .containsExactly(9L, null, null, null, null);
  }

  @Test
  void aDateIsReadAsDebeziumWritesItAndTimestampsKeepTheirEpochUnit() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "long");
    columns.put("born", "date");
    columns.put("address.since", "date");
    columns.put("updated_at", "timestamp(micros)");
    DebeziumDecoder decoder =
        DebeziumDecoder.json("customers", columns, 1 << 20, EnvelopeSpec.OnTruncate.FAIL);
    assertThat(decoder.schema().fields().get(1).type()).isEqualTo(PrimitiveType.DATE);
    Object[] row =
        rowOf(
            decode(
                decoder,
                event(
                    "c",
                    "null",
                    "{\"id\":1,\"born\":19723,\"address\":{\"since\":-1},"
                        + "\"updated_at\":1704067200000001}")));
    assertThat(row)
        .containsExactly(
            1L,
            LocalDate.parse("2024-01-01"),
            new Object[] {LocalDate.parse("1969-12-31")},
            Instant.parse("2024-01-01T00:00:00.000001Z"),
            "c",
            Instant.ofEpochMilli(TS));
    assertThat(decode(decoder, event("c", "null", "{\"id\":1,\"born\":\"2024-01-01\"}")))
        .asString()
        .contains("after.born");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  // ---- Avro: the envelope record with before/after unions of the table's Value record ----

  private static final String VALUE =
      """
      {"type": "record", "name": "Value", "namespace": "db.public.customers", "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": ["null", "string"], "default": null},
        {"name": "born", "type": {"type": "int", "connect.name": "io.debezium.time.Date"}}]}""";

  private static final String ENVELOPE =
      """
      {"type": "record", "name": "Envelope", "namespace": "db.public.customers", "fields": [
        {"name": "before", "type": ["null", %s], "default": null},
        {"name": "after", "type": ["null", "db.public.customers.Value"], "default": null},
        {"name": "source", "type": {"type": "record", "name": "Source",
          "namespace": "io.debezium.connector.postgresql", "fields": [
          {"name": "version", "type": "string"},
          {"name": "ts_ms", "type": "long"},
          {"name": "lsn", "type": ["null", "long"], "default": null}]}},
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": null},
        {"name": "transaction", "type": ["null", {"type": "record", "name": "block",
          "namespace": "event", "fields": [
          {"name": "id", "type": "string"},
          {"name": "total_order", "type": "long"},
          {"name": "data_collection_order", "type": "long"}]}], "default": null}]}"""
          .formatted(VALUE);

  private static final String KEY =
      """
      {"type": "record", "name": "Key", "namespace": "db.public.customers", "fields": [
        {"name": "id", "type": "long"}]}""";

  private static final String TRANSACTION =
      """
      {"type": "record", "name": "TransactionMetadataValue", "namespace": "io.debezium",
       "fields": [{"name": "status", "type": "string"}, {"name": "id", "type": "string"},
        {"name": "event_count", "type": ["null", "long"], "default": null}]}""";

  private final Map<Integer, RegisteredSchema> registry = new HashMap<>();

  private SchemaSource source() {
    return id -> {
      RegisteredSchema s = registry.get(id);
      if (s == null) {
        throw new UnknownSchemaException(id, "schema id " + id + " is unknown");
      }
      return s;
    };
  }

  private Schema register(int id, String schema) {
    registry.put(id, new RegisteredSchema(id, "AVRO", schema, List.of()));
    return new Schema.Parser().parse(schema);
  }

  private DebeziumDecoder avro(EnvelopeSpec.OnTruncate onTruncate) {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "long");
    columns.put("name", "string");
    columns.put("born", "date");
    return DebeziumDecoder.avro(
        "customers", source(), columns, new LinkedHashMap<>(), 1 << 20, onTruncate);
  }

  private byte[] avroEvent(String op, Long beforeId, Long afterId) {
    Schema envelope = register(10, ENVELOPE);
    Schema value = envelope.getField("after").schema().getTypes().get(1);
    GenericRecord e = new GenericData.Record(envelope);
    e.put("before", beforeId == null ? null : valueRecord(value, beforeId, "old"));
    e.put("after", afterId == null ? null : valueRecord(value, afterId, "new"));
    GenericRecord source = new GenericData.Record(envelope.getField("source").schema());
    source.put("version", "2.5.0");
    source.put("ts_ms", TS);
    e.put("source", source);
    e.put("op", op);
    e.put("ts_ms", TS + 50);
    Schema block = envelope.getField("transaction").schema().getTypes().get(1);
    GenericRecord tx = new GenericData.Record(block);
    tx.put("id", "571");
    tx.put("total_order", 1L);
    tx.put("data_collection_order", 1L);
    e.put("transaction", tx);
    return AvroWire.encode(10, envelope, e);
  }

  private static GenericRecord valueRecord(Schema value, long id, String name) {
    GenericRecord r = new GenericData.Record(value);
    r.put("id", id);
    r.put("name", name);
    r.put("born", 19723);
    return r;
  }

  @Test
  void readsAvroEnvelopesOfEveryOperation() {
    DebeziumDecoder decoder = avro(EnvelopeSpec.OnTruncate.FAIL);
    assertThat(decoder.schema().fieldNames())
        .containsExactly("id", "name", "born", "_op", "_source_ts");
    Instant at = Instant.ofEpochMilli(TS);
    LocalDate born = LocalDate.parse("2024-01-01");
    assertThat(rowOf(decoder.decode("t", 0, 1, null, avroEvent("c", null, 5L))))
        .containsExactly(5L, "new", born, "c", at);
    assertThat(rowOf(decoder.decode("t", 0, 2, null, avroEvent("r", null, 5L))))
        .containsExactly(5L, "new", born, "r", at);
    assertThat(rowOf(decoder.decode("t", 0, 3, null, avroEvent("u", 5L, 5L))))
        .containsExactly(5L, "new", born, "u", at);
    assertThat(rowOf(decoder.decode("t", 0, 4, null, avroEvent("d", 5L, null))))
        .containsExactly(5L, "old", born, "d", at);
    assertThat(decoder.decode("t", 0, 5, null, avroEvent("c", null, null)))
        .asString()
        .contains("after is missing or null for op 'c'");
    assertThatThrownBy(() -> decoder.decode("t", 0, 6, null, avroEvent("t", null, null)))
        .isInstanceOf(TruncateEventException.class)
        .hasMessageContaining("t/0 offset 6")
        .hasMessageContaining("format.avro.on-truncate: skip");
    assertThat(
            avro(EnvelopeSpec.OnTruncate.SKIP).decode("t", 0, 6, null, avroEvent("t", null, null)))
        .isInstanceOf(ParseResult.Skipped.class);
  }

  @Test
  void anAvroTransactionBoundaryIsSkippedAndATombstonesKeyRecordFillsTheKey() {
    Schema tx = register(11, TRANSACTION);
    GenericRecord begin = new GenericData.Record(tx);
    begin.put("status", "BEGIN");
    begin.put("id", "571");
    DebeziumDecoder decoder = avro(EnvelopeSpec.OnTruncate.FAIL);
    assertThat(decoder.decode("db.transaction", 0, 1, null, AvroWire.encode(11, tx, begin)))
        .isEqualTo(ParseResult.skipped("transaction metadata event (status BEGIN)"));
    Schema key = register(12, KEY);
    GenericRecord k = new GenericData.Record(key);
    k.put("id", 5L);
    assertThat(rowOf(decoder.decodeKey("t", 0, 7, AvroWire.encode(12, key, k), List.of("id"))))
        .containsExactly(5L, null, null, null, null);
  }
}
