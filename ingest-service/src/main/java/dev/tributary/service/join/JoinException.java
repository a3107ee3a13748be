package dev.tributary.service.join;

/**
 * A join that cannot run as declared: its dimension table is too large, lacks a key or a column, or
 * has a key of another type. Not retryable: the declaration or the table must change.
 */
public final class JoinException extends RuntimeException {
  JoinException(String message) {
    super(message);
  }

  JoinException(String message, Throwable cause) {
    super(message, cause);
  }
}
