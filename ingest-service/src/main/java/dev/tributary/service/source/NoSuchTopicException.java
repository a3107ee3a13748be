package dev.tributary.service.source;

/**
 * A topic the pipeline declares ({@code source.kafka.topics}) does not exist on the broker. Only
 * someone else can end this (create the topic, or fix the file): {@code run} fails at once with the
 * message, {@code serve} waits for the topic, DEGRADED with the message as its reason (a pipeline
 * deployed before its topic). Reading never creates a topic: the consumer is configured with {@code
 * allow.auto.create.topics=false}, so a typo does not become an empty topic on a broker that
 * creates topics on first use.
 */
public final class NoSuchTopicException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String topic;

  /** The message names the pipeline, the topic and the bootstrap servers. */
  public NoSuchTopicException(String message, String topic) {
    super(message);
    this.topic = topic;
  }

  /** The topic the broker does not know. */
  public String topic() {
    return topic;
  }
}
