package dev.tributary.service.backfill;

/**
 * A backfill that is not started (or stops before writing) because what was asked cannot be done
 * safely: the message says why and how to go on. {@link #exitCode()}: 2 for invalid arguments or an
 * unsupported declaration, 1 for a state of the source or table that refuses it.
 */
public final class BackfillRefusal extends RuntimeException {
  private final int exitCode;

  /** A refusal of the arguments or the declaration: exit code 2. */
  public BackfillRefusal(String message) {
    this(message, 2);
  }

  BackfillRefusal(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  /** The command's exit code for this refusal (docs/PIPELINE_REFERENCE.md, exit codes). */
  public int exitCode() {
    return exitCode;
  }
}
