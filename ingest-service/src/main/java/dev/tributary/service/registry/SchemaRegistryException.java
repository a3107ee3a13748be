package dev.tributary.service.registry;

/**
 * The registry refused the request in a way retrying cannot fix (401, 403, another 4xx, an answer
 * that is not the API's JSON): the pipeline's registry settings are wrong. Fails the batch; the
 * message says what the registry answered and how to fix it.
 */
public final class SchemaRegistryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  SchemaRegistryException(String message) {
    super(message);
  }
}
