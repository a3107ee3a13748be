package dev.tributary.service.registry;

import dev.tributary.service.parse.DecoderUnavailableException;

/**
 * The registry could not be reached, timed out or answered 5xx (or 429) through every retry: a
 * transient failure. The batch fails and is replayed later; no record is quarantined for it.
 */
public final class SchemaRegistryUnavailableException extends DecoderUnavailableException {
  private static final long serialVersionUID = 1L;

  SchemaRegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
