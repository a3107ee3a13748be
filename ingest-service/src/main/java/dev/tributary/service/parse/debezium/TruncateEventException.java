package dev.tributary.service.parse.debezium;

/**
 * A Debezium truncate event ({@code op: t}) reached a pipeline that fails on them ({@code
 * on-truncate: fail}, the default): the source table was emptied, which a table fed row by row
 * cannot follow. Permanent: replaying the batch meets the same event; the operator decides.
 */
public final class TruncateEventException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The message names the pipeline, the record and the ways out. */
  public TruncateEventException(String message) {
    super(message);
  }
}
