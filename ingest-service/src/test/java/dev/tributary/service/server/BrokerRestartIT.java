package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker dies under a running service: {@code tributary serve} (a child JVM) runs a
 * processing-time pipeline while an idempotent producer keeps producing; the broker process is
 * killed with SIGKILL mid-run and started again on the same data directory and port. Nobody
 * restarts the pipeline: it must get going again by itself (here the consumer reconnects, since the
 * broker is back well within the 30 s metadata timeout; a longer outage fails the run and the
 * service restarts it with backoff), and the table must end up with every record of the topic
 * exactly once.
 */
class BrokerRestartIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SLOW = Duration.ofMinutes(3);
  private static final String TOPIC = "clicks";
  private static final int PARTITIONS = 3;

  /** Records produced after the broker is back, so that the pipeline must read past the outage. */
  private static final int AFTER_RESTART = 1500;

  @TempDir Path dir;
  private KafkaBrokerProcess broker;
  private Process serve;
  private Path serveLog;

  @AfterEach
  void stopAll() throws Exception {
    if (serve != null && serve.isAlive()) {
      serve.destroyForcibly().waitFor();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aPipelineRecoversByItselfFromABrokerKilledMidRunAndHoldsEveryRecordOnce() throws Exception {
    broker = KafkaBrokerProcess.start(dir.resolve("broker"));
    broker.createTopic(TOPIC, PARTITIONS);
    Path table = dir.resolve("tables/clicks");
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(
        pipelines.resolve("clicks.yaml"),
        """
        pipeline: clicks
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 2000
        format:
          json:
            schema:
              id: long
              page: string
        sink:
          delta: { path: "%s" }
        quarantine:
          delta: { path: "%s" }
        checkpoint: "%s"
        trigger: { processing-time: 200ms }
        """
            .formatted(
                broker.bootstrapServers(),
                TOPIC,
                table,
                dir.resolve("tables/clicks-quarantine"),
                dir.resolve("checkpoint")));
    int port = ChildJvm.freePort();
    serveLog = dir.resolve("serve.log");
    serve =
        ChildJvm.start(
            List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            "dev.tributary.service.cli.Main",
            List.of(
                "serve", "--pipelines-dir", pipelines.toString(), "--port", Integer.toString(port)),
            serveLog,
            dir);
    Http http = new Http("http://127.0.0.1:" + port);

    Producing producing = new Producing(broker.bootstrapServers());
    Thread producer = new Thread(producing, "broker-restart-producer");
    producer.start();
    try {
      await("the pipeline writes before the broker dies")
          .atMost(SLOW)
          .pollInterval(Duration.ofMillis(300))
          .failFast("serve exited:\n" + tail(), () -> !serve.isAlive())
          .until(() -> rowCount(table) >= 500);

      broker.kill();
      long atKill = producing.acked.get();
      broker.restart();
      producing.stopAfter(AFTER_RESTART);
      producer.join(SLOW.toMillis());
      assertThat(producer.isAlive()).as("producer finished").isFalse();
      assertThat(producing.failures).as("every send succeeded (idempotent, retried)").isEmpty();
      assertThat(producing.acked.get())
          .as("records acknowledged after the restart")
          .isGreaterThanOrEqualTo(atKill + AFTER_RESTART);
    } finally {
      producing.stopNow();
      producer.join(SLOW.toMillis());
    }

    Map<String, Long> topic = topicContents();
    assertThat(topic).hasSize((int) producing.sent.get());
    assertThat(new HashSet<>(topic.values()))
        .as("every id in the topic once (idempotent producer)")
        .hasSize(topic.size());
    await("the pipeline catches up after the outage")
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .failFast("serve exited:\n" + tail(), () -> !serve.isAlive())
        .until(() -> rowCount(table) >= topic.size());

    Map<String, Integer> copies = new HashMap<>();
    Map<String, Long> ids = new HashMap<>();
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      for (Object[] row : TableContents.rows(store)) {
        // columns: id, page, _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp
        String offset = row[3] + "/" + row[4];
        copies.merge(offset, 1, Integer::sum);
        ids.put(offset, (Long) row[0]);
      }
    }
    assertThat(copies.values()).as("no record twice in the table").allMatch(c -> c == 1);
    assertThat(ids)
        .as("every record of the topic in the table, with its own content")
        .isEqualTo(topic);
    System.out.printf(
        "%d records; what the service said about the pipeline:%n%s%n",
        topic.size(),
        String.join(
            "\n",
            Files.readAllLines(serveLog).stream()
                .filter(l -> l.contains("Pipeline clicks"))
                .map(l -> l.substring(0, Math.min(300, l.length())))
                .limit(20)
                .toList()));
    String state =
        JSON.readTree(http.get("/api/pipelines/clicks").body()).get("status").get("state").asText();
    assertThat(state)
        .as("the pipeline runs on without anyone restarting it; log:%n%s", tail())
        .isEqualTo("RUNNING");
  }

  private static long rowCount(Path table) throws Exception {
    // the table exists once its first commit does (the folder comes a moment before)
    if (!Files.exists(table.resolve("_delta_log/00000000000000000000.json"))) {
      return 0;
    }
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      return TableContents.rows(store).size();
    }
  }

  /** partition/offset to id, of every record in the topic, read straight from the broker. */
  private Map<String, Long> topicContents() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        partitions.add(new TopicPartition(TOPIC, i));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(60));
      Map<String, Long> out = new HashMap<>();
      await("the whole topic read back")
          .atMost(SLOW)
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                  out.put(
                      r.partition() + "/" + r.offset(),
                      JSON.readTree(r.value()).get("id").asLong());
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
              });
      return out;
    }
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(serveLog, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /**
   * Produces records with ids 0, 1, 2, … in rounds of 100, each round flushed, about five rounds a
   * second (well below what the pipeline reads, so it catches up quickly once the broker is back).
   * Sends made while the broker is down wait in the producer and are retried when it is back;
   * idempotence keeps the retries from duplicating records.
   */
  private static final class Producing implements Runnable {
    private static final Duration ROUND = Duration.ofMillis(200);
    final AtomicLong sent = new AtomicLong();
    final AtomicLong acked = new AtomicLong();
    final List<Exception> failures = new CopyOnWriteArrayList<>();
    private final Map<String, Object> config = new ConcurrentHashMap<>();
    private final AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
    private final AtomicBoolean stopNow = new AtomicBoolean();

    Producing(String bootstrap) {
      config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
      config.put(ProducerConfig.ACKS_CONFIG, "all");
      config.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
      config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) SLOW.toMillis());
      config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
      config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, SLOW.toMillis());
      config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    }

    /** Produces {@code count} more records from now on, then ends. */
    void stopAfter(int count) {
      stopAt.set(acked.get() + count);
    }

    void stopNow() {
      stopNow.set(true);
    }

    @Override
    public void run() {
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(Map.copyOf(config), new StringSerializer(), new StringSerializer())) {
        long nextRound = System.nanoTime();
        while (!stopNow.get() && sent.get() < stopAt.get()) {
          nextRound += ROUND.toNanos();
          LockSupport.parkNanos(nextRound - System.nanoTime()); // pacing, not a wait for a result
          for (int i = 0; i < 100; i++) {
            long id = sent.getAndIncrement();
            String value = "{\"id\":" + id + ",\"page\":\"/p" + (id % 7) + "\"}";
            producer.send(
                new ProducerRecord<>(TOPIC, Long.toString(id), value),
                (metadata, error) -> {
                  if (error != null) {
                    failures.add(error);
                  } else {
                    acked.incrementAndGet();
                  }
                });
          }
          producer.flush();
        }
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
  }
}
