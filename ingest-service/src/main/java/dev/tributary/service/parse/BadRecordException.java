package dev.tributary.service.parse;

/**
 * Thrown inside the parser to abandon a record; caught by {@link JsonRecordParser} and turned into
 * a {@link ParseResult.Failure}. Stackless because bad records are data, not bugs, and a quarantine
 * burst must not cost a stack walk per record.
 */
final class BadRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BadRecordException(String message) {
    super(message, null, false /* suppression */, false /* writableStackTrace */);
  }
}
