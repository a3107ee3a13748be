package dev.tributary.service.parse.protobuf;

/**
 * A record that cannot become a row (a value out of range, a field of the wrong type, bad message
 * indexes); its message becomes the quarantine {@code error}. Thrown inside the decoder only, and
 * without a stack trace: it is control flow on the per-record path.
 */
final class ProtobufValueException extends Exception {
  private static final long serialVersionUID = 1L;

  ProtobufValueException(String message) {
    super(message, null, false, false);
  }
}
