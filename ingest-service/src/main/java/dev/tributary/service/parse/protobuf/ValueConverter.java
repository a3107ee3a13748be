package dev.tributary.service.parse.protobuf;

/**
 * Turns the value protobuf-java's {@code Message.getField} returns for one field (Integer, Long,
 * Float, Double, Boolean, String, ByteString, EnumValueDescriptor or Message) into the Java value
 * of the declared column type. Built once per (field, declared type); {@link #convert} does no
 * schema work.
 */
@FunctionalInterface
interface ValueConverter {
  Object convert(Object value) throws ProtobufValueException;

  /**
   * The field's type cannot become the declared type: every record of the schema fails with {@code
   * message} (the field is set or not), so a producer's type change is never half-visible.
   */
  record Misfit(String message) implements ValueConverter {
    @Override
    public Object convert(Object value) throws ProtobufValueException {
      throw new ProtobufValueException(message);
    }
  }
}
