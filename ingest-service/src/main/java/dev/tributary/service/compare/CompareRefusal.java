package dev.tributary.service.compare;

/**
 * The comparison cannot be made as asked: a table or version that does not exist, an unknown key
 * column, a {@code --where} that does not compile, tables whose columns differ. The command line
 * reports it with exit code 2 (a usage error), unlike a difference found (1) or a failure (1).
 */
public final class CompareRefusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A refusal whose message says what is wrong and how to ask instead. */
  public CompareRefusal(String message) {
    super(message);
  }

  /** A refusal caused by {@code cause} (an expression error, a log that cannot be replayed). */
  public CompareRefusal(String message, Throwable cause) {
    super(message, cause);
  }
}
