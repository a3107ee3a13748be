package dev.tributary.service.parse.avro;

/**
 * Abandons one record whose value does not fit a declared column; stackless, as bad records are
 * data, not bugs (a quarantine burst must not cost a stack walk per record).
 */
final class AvroMisfit extends RuntimeException {
  private static final long serialVersionUID = 1L;

  AvroMisfit(String message) {
    super(message, null, false /* suppression */, false /* writableStackTrace */);
  }
}
