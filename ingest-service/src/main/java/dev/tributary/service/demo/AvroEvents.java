package dev.tributary.service.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.registry.ConfluentWireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The demo's {@link SampleEvents} as Avro in the Confluent wire format: every well-formed event
 * (duplicates included, byte for byte) becomes an Avro record of {@link #SCHEMA}; the malformed
 * ones become what a broken Avro producer sends: a JSON record on an Avro topic (truncated JSON), a
 * record naming a schema id the registry does not know (a bad timestamp), and a truncated Avro body
 * (a bad amount). Deterministic, like the events.
 */
public final class AvroEvents {
  /** The demo's writer schema. */
  public static final String SCHEMA =
      """
      {"type": "record", "name": "Order", "namespace": "demo", "fields": [
        {"name": "order_id", "type": "string"},
        {"name": "customer_id", "type": "string"},
        {"name": "event_time", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "amount_cents", "type": "long"},
        {"name": "channel", "type": "string"}]}""";

  /** The id the "bad timestamp" records claim: never registered by the demo. */
  public static final int UNKNOWN_SCHEMA_ID = 9999;

  private static final ObjectMapper JSON = new ObjectMapper();

  private AvroEvents() {}

  /** {@code sample}'s values as Avro records of schema {@code schemaId}, in the same order. */
  public static List<byte[]> encode(SampleEvents.Batch sample, int schemaId) {
    Schema schema = new Schema.Parser().parse(SCHEMA);
    GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
    List<byte[]> values = new ArrayList<>(sample.values().size());
    BinaryEncoder encoder = null;
    for (byte[] json : sample.values()) {
      JsonNode event;
      try {
        event = JSON.readTree(json);
      } catch (IOException truncated) {
        values.add(json);
        continue;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Instant eventTime;
      try {
        eventTime = Instant.parse(event.get("event_time").asText());
      } catch (DateTimeParseException badTimestamp) {
        out.writeBytes(ConfluentWireFormat.header(UNKNOWN_SCHEMA_ID));
        out.writeBytes(json);
        values.add(out.toByteArray());
        continue;
      }
      boolean badAmount = !event.get("amount_cents").isIntegralNumber();
      GenericRecord r = new GenericData.Record(schema);
      r.put("order_id", event.get("order_id").asText());
      r.put("customer_id", event.get("customer_id").asText());
      r.put("event_time", eventTime.getEpochSecond() * 1_000_000L + eventTime.getNano() / 1000);
      r.put("amount_cents", badAmount ? 0L : event.get("amount_cents").asLong());
      r.put("channel", event.path("channel").asText("web"));
      out.writeBytes(ConfluentWireFormat.header(schemaId));
      encoder = EncoderFactory.get().binaryEncoder(out, encoder);
      try {
        writer.write(r, encoder);
        encoder.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] bytes = out.toByteArray();
      values.add(badAmount ? Arrays.copyOf(bytes, bytes.length - 2) : bytes);
    }
    return values;
  }
}
