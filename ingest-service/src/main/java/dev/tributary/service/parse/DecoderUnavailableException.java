package dev.tributary.service.parse;

/**
 * A {@link RecordDecoder} cannot decode now for a reason outside the record: the schema registry is
 * down, times out or answers 5xx (after the client's own retries). Transient: the batch fails and
 * is replayed with the same offsets (the service restarts the pipeline with backoff), and the
 * record is never quarantined for it.
 */
public class DecoderUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DecoderUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
