package dev.tributary.service.parse.protobuf;

/**
 * A registry schema that cannot be used: its {@code .proto} text does not parse or does not
 * describe valid types, it imports a file that is neither among its references nor a well-known
 * type, or a declared column maps to a field no column type can hold (repeated, map, bytes). The
 * message names the file, message or field and says how to fix it. Not a per-record failure: every
 * record of that schema would fail the same way.
 */
public final class ProtobufSchemaException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  ProtobufSchemaException(String message) {
    super(message);
  }

  ProtobufSchemaException(String message, Throwable cause) {
    super(message, cause);
  }
}
