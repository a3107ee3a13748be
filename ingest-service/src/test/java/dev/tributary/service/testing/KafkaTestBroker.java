package dev.tributary.service.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A real KRaft Kafka broker running inside the test JVM (spring-kafka-test), shared by every
 * integration test of the JVM and stopped by a shutdown hook. Tests create their own uniquely named
 * topics, so they never see each other's records.
 */
public final class KafkaTestBroker {
  private static KafkaTestBroker shared;

  private final EmbeddedKafkaKraftBroker broker;

  private KafkaTestBroker() {
    broker = new EmbeddedKafkaKraftBroker(1, 1);
    broker.brokerProperty("log.retention.check.interval.ms", "1000");
    // Kafka transactions on one broker (stage 1 of stateful group mode): the transaction log's
    // defaults need three replicas; a transaction a test abandons is aborted within a second of its
    // timeout instead of the default ten.
    broker.brokerProperty("transaction.state.log.replication.factor", "1");
    broker.brokerProperty("transaction.state.log.min.isr", "1");
    broker.brokerProperty("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
    // Crash tests of group mode restart an instance while its dead predecessor is still a member:
    // a short session timeout (2 s) lets its partitions move on at once.
    broker.brokerProperty("group.min.session.timeout.ms", "1000");
    broker.afterPropertiesSet();
  }

  /** The JVM's broker, started on first use (about 4 s). */
  public static synchronized KafkaTestBroker shared() {
    if (shared == null) {
      shared = new KafkaTestBroker();
      Runtime.getRuntime().addShutdownHook(new Thread(shared.broker::destroy));
    }
    return shared;
  }

  public String bootstrapServers() {
    return broker.getBrokersAsString();
  }

  /** Creates a fresh topic whose name starts with {@code prefix}, and returns its name. */
  public String createTopic(String prefix, int partitions) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    try (Admin admin = admin()) {
      Topics.createAndAwaitLeaders(admin, name, partitions);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + name, e);
    }
    return name;
  }

  /**
   * Sends values to one partition, synchronously, and returns nothing until all are acknowledged.
   */
  public void send(String topic, int partition, List<String> values) {
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      List<Future<?>> sent = new ArrayList<>();
      for (String v : values) {
        sent.add(
            producer.send(
                new ProducerRecord<>(topic, partition, null, v.getBytes(StandardCharsets.UTF_8))));
      }
      for (var f : sent) {
        f.get();
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException("cannot send to " + topic, e);
    }
  }

  /**
   * Sends {@code records} (partition, value) in their order with one producer, and waits for every
   * {@code chunk} records before sending more: no partition gets ahead of the others by more than a
   * chunk, as when a stream's producers write all partitions at once. Event-time tests need this: a
   * pipeline that plans while one partition holds the whole stream and another nothing yet rightly
   * drops the other's older records as late.
   */
  public void sendInOrder(String topic, List<Map.Entry<Integer, String>> records, int chunk) {
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      List<Future<?>> sent = new ArrayList<>();
      for (Map.Entry<Integer, String> r : records) {
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic, r.getKey(), null, r.getValue().getBytes(StandardCharsets.UTF_8))));
        if (sent.size() == chunk) {
          for (var f : sent) {
            f.get();
          }
          sent.clear();
        }
      }
      for (var f : sent) {
        f.get();
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException("cannot send to " + topic, e);
    }
  }

  /** Deletes every record of the partition before {@code offset}, as retention would. */
  public void deleteRecordsBefore(String topic, int partition, long offset) {
    try (Admin admin = admin()) {
      admin
          .deleteRecords(
              Map.of(new TopicPartition(topic, partition), RecordsToDelete.beforeOffset(offset)))
          .all()
          .get();
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException("cannot delete records of " + topic, e);
    }
  }

  /**
   * Deletes {@code topic} and creates it again under the same name with {@code partitions}
   * partitions and no records (a new topic id, offsets from 0), waiting until the old one is gone.
   */
  public void recreateTopic(String topic, int partitions) {
    try (Admin admin = admin()) {
      admin.deleteTopics(List.of(topic)).all().get();
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () -> {
                Topics.createAndAwaitLeaders(admin, topic, partitions);
                return true;
              });
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException("cannot re-create topic " + topic, e);
    }
  }

  public Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    return Admin.create(p);
  }

  public KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    // One request in flight: a first batch refused by a partition whose leader is still starting
    // (NOT_LEADER_OR_FOLLOWER) could otherwise be overtaken by the next one, which the broker takes
    // as the producer's first sequence there; the retried first batch is then out of order for
    // good and the send times out after two minutes (seen in DebeziumUpsertIT, GroupScaleOutIT).
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return new KafkaProducer<>(p);
  }
}
