package dev.tributary.service.server;

/**
 * A supervisor gave up: its pipeline could not reach its source or sink for longer than {@link
 * SupervisorSettings#maxOutage()}. The message says for how long, what failed last and how to go
 * on; the pipeline's secrets are masked in it. Nothing is lost: the next start resumes from the
 * checkpoint.
 */
public final class OutageLimitException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  OutageLimitException(String message) {
    // No cause: the message already carries the last failure's description, masked, and a cause's
    // message would be printed again, unmasked, by whoever renders the chain.
    super(message);
  }
}
