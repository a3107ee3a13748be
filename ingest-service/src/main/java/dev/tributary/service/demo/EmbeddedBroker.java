package dev.tributary.service.demo;

import java.lang.reflect.InvocationTargetException;

/**
 * The demo's single-node Kafka broker (KRaft, in this JVM): Spring Kafka's embedded test broker.
 * It is deliberately not part of the service jar, which carries only what the service runs; the
 * demo launcher ({@code ./tributary demo}) puts it on the classpath. It is reached by reflection so
 * that the service compiles and runs without it.
 */
public final class EmbeddedBroker implements AutoCloseable {
  private static final String CLASS = "org.springframework.kafka.test.EmbeddedKafkaKraftBroker";

  private final Object broker;
  private final String bootstrapServers;

  private EmbeddedBroker(Object broker, String bootstrapServers) {
    this.broker = broker;
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * Starts a broker holding {@code topics}, each with {@code partitions} partitions.
   *
   * @throws IllegalStateException if the broker classes are not on the classpath (the service jar
   *     run directly instead of through the demo launcher), or the broker does not start
   */
  public static EmbeddedBroker start(int partitions, String... topics) {
    Class<?> type;
    try {
      type = Class.forName(CLASS);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("The demo needs an embedded Kafka broker, which the service jar does"
          + " not carry (it holds only what the service runs). Run the demo with ./tributary demo, which"
          + " adds the broker to the classpath.", e);
    }
    try {
      Object broker = type.getConstructor(int.class, int.class, String[].class).newInstance(1, partitions, topics);
      type.getMethod("afterPropertiesSet").invoke(broker);
      String servers = (String) type.getMethod("getBrokersAsString").invoke(broker);
      return new EmbeddedBroker(broker, servers);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("The demo's embedded Kafka broker did not start: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("The demo's embedded Kafka broker has an unexpected API: " + e, e);
    }
  }

  /** {@code host:port} of the broker. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Stops the broker and deletes its data. */
  @Override
  public void close() {
    try {
      broker.getClass().getMethod("destroy").invoke(broker);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("stopping the demo's embedded Kafka broker failed: " + e, e);
    }
  }
}
