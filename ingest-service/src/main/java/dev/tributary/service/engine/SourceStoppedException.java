package dev.tributary.service.engine;

/**
 * Thrown by a {@link Source} call that {@link Source#wakeup()} interrupted: the engine was asked to
 * stop. Not a failure; an unfinished batch is replayed at the next start.
 */
public final class SourceStoppedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SourceStoppedException(Throwable cause) {
    super("the source was woken up to stop", cause);
  }
}
