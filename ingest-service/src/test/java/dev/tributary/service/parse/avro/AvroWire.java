package dev.tributary.service.parse.avro;

import dev.tributary.service.registry.ConfluentWireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Encodes test records as a registry-aware producer would: the wire header, then Avro's own binary
 * encoding.
 */
public final class AvroWire {
  private AvroWire() {}

  /**
   * {@code datum} (a GenericRecord, or a plain value for a primitive schema) under {@code
   * schemaId}.
   */
  public static byte[] encode(int schemaId, Schema schema, Object datum) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(ConfluentWireFormat.header(schemaId));
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<>(schema).write(datum, encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
