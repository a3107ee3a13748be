package dev.tributary.service.parse.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;

/** The golden .proto files of src/test/resources/protobuf, compiled, and payload framing. */
final class ProtoFixtures {
  private ProtoFixtures() {}

  static String text(String name) {
    try (InputStream in = ProtoFixtures.class.getResourceAsStream("/protobuf/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource protobuf/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** order.proto as a registry returns it: its text, and common/address.proto as a reference. */
  static ProtobufSchema orderSchema() {
    return ProtobufSchema.compile(
        text("order.proto"), Map.of("common/address.proto", text("common/address.proto")));
  }

  /** A .hex golden file: hex digits, whitespace and # comment lines. */
  static byte[] hex(String name) {
    StringBuilder digits = new StringBuilder();
    for (String line : text(name).split("\n")) {
      if (!line.startsWith("#")) {
        digits.append(line.replaceAll("\\s", ""));
      }
    }
    return HexFormat.of().parseHex(digits);
  }

  static Descriptor type(ProtobufSchema schema, String fullName) {
    return schema.message(fullName).orElseThrow();
  }

  /** What follows the 5-byte header: the message indexes, then the message. */
  static byte[] payload(ProtobufSchema schema, DynamicMessage message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(schema.indexesOf(message.getDescriptorForType()).toBytes());
    out.writeBytes(message.toByteArray());
    return out.toByteArray();
  }
}
