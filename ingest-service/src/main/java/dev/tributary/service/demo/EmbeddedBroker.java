package dev.tributary.service.demo;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The demo's single-node Kafka broker (KRaft, in this JVM): Spring Kafka's embedded test broker. It
 * is deliberately not part of the service jar, which carries only what the service runs; the demo
 * launcher ({@code ./tributary demo}) puts it on the classpath. It is reached by reflection so that
 * the service compiles and runs without it.
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
      throw new IllegalStateException(
          "The demo needs an embedded Kafka broker, which the service jar does"
              + " not carry (it holds only what the service runs). Run the demo with ./tributary demo, which"
              + " adds the broker to the classpath.",
          e);
    }
    // Kafka's storage formatter prints "Formatting metadata directory ..." to System.out, which is
    // the demo's own output: that line is held back, and shown on stderr only if the start fails.
    PrintStream stdout = System.out;
    ByteArrayOutputStream held = new ByteArrayOutputStream();
    boolean started = false;
    try {
      System.setOut(new PrintStream(held, true, StandardCharsets.UTF_8));
      Object broker =
          type.getConstructor(int.class, int.class, String[].class)
              .newInstance(1, partitions, topics);
      type.getMethod("afterPropertiesSet").invoke(broker);
      System.setOut(stdout);
      String servers = (String) type.getMethod("getBrokersAsString").invoke(broker);
      awaitLeaders(servers, topics);
      started = true;
      return new EmbeddedBroker(broker, servers);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException(
          "The demo's embedded Kafka broker did not start: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "The demo's embedded Kafka broker has an unexpected API: " + e, e);
    } finally {
      System.setOut(stdout);
      if (!started) {
        System.err.print(held.toString(StandardCharsets.UTF_8));
      }
    }
  }

  /**
   * Waits until every partition of {@code topics} has a leader: an idempotent producer that sends
   * before that can stall on OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout and lose the
   * records it held.
   */
  private static void awaitLeaders(String servers, String... topics) {
    Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    try (Admin admin = Admin.create(config)) {
      while (true) {
        try {
          boolean ready =
              admin.describeTopics(List.of(topics)).allTopicNames().get().values().stream()
                  .allMatch(
                      d ->
                          d.partitions().stream()
                              .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
          if (ready) {
            return;
          }
        } catch (ExecutionException notYet) {
          // the topic is still being created
        }
        if (Instant.now().isAfter(deadline)) {
          throw new IllegalStateException(
              "The demo's Kafka topics " + List.of(topics) + " have no leader after 60 s");
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the demo's Kafka topics", e);
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
