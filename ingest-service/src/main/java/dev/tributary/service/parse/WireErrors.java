package dev.tributary.service.parse;

/**
 * The messages of the Confluent-framed decoders ({@code format.avro}, {@code format.protobuf}) that
 * do not depend on the format, built in one place; the format-specific ones are in each format's
 * package.
 */
public final class WireErrors {
  private WireErrors() {}

  /** The prefix naming the record: {@code orders/3 offset 1234: value: }. */
  public static String where(String topic, int partition, long offset, String part) {
    return topic + "/" + partition + " offset " + offset + ": " + part + ": ";
  }

  /** A tombstone cannot delete its key: the format does not decode keys. */
  public static String keyNotDeclared(String format) {
    return "the record key is not decoded; declare its columns in format."
        + format
        + ".key so that a tombstone deletes its key";
  }

  /** A tombstone without a key. */
  public static String tombstoneWithoutKey() {
    return "record value is null (a tombstone) and so is its key: there is no key to delete";
  }

  public static String tombstone() {
    return "record value is null (a tombstone)";
  }

  public static String tooLarge(int length, long max) {
    return "record is " + length + " bytes, above max-record-size (" + max + " bytes)";
  }

  public static String maxRecordSizeNotPositive(long max) {
    return "max-record-size must be positive, was " + max + " bytes";
  }
}
