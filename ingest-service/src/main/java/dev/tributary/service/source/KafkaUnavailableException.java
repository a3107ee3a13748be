package dev.tributary.service.source;

/**
 * The Kafka cluster did not answer in time. Transient: the service retries the pipeline with
 * backoff; the command line reports it and exits 1.
 */
public final class KafkaUnavailableException extends RuntimeException {
  public KafkaUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
