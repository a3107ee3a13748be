package dev.tributary.service.sink;

/**
 * A sink refused a batch for a reason that trying again cannot fix: the table is missing or cannot
 * take a column, a row breaks a constraint, the credentials or privileges are wrong, the topic does
 * not exist. Permanent: {@code serve} marks the pipeline FAILED and {@code run} exits 1, with the
 * message, which names the pipeline, the sink and what to do (and, for a row, its source offset).
 */
public final class SinkRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SinkRefusedException(String message) {
    super(message);
  }

  public SinkRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
