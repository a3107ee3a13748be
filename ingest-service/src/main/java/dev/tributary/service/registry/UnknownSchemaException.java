package dev.tributary.service.registry;

/**
 * The registry answered 404 for a schema id: the record names a schema it does not know
 * (quarantined).
 */
public final class UnknownSchemaException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int id;

  public UnknownSchemaException(int id, String message) {
    super(message, null, false, false);
    this.id = id;
  }

  /** The unknown schema id. */
  public int id() {
    return id;
  }
}
