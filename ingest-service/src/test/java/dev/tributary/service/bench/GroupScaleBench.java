package dev.tributary.service.bench;

import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer-group scale-out throughput on this machine (docs/OPERATIONS.md, "Capacity"): a broker
 * process, N JSON events of about 200 bytes on 12 partitions, then the same stateless pipeline with
 * {@code assignment: group} run available-now by 1, 2 and 3 instance processes at once, each into
 * fresh tables. The rate is the records committed after the first commit divided by the time from
 * the first to the last commit of the sink table (so JVM start and group join are left out). Never
 * part of the suite (its name does not end in IT or Test): run it with {@code mvn -pl
 * ingest-service -am verify -Dit.test=GroupScaleBench -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Dbench.events=600000}. Timings are printed, not
 * asserted.
 */
class GroupScaleBench {
  @TempDir Path dir;

  @Test
  void measureOneTwoAndThreeInstances() throws Exception {
    int events = Integer.getInteger("bench.events", 600_000);
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      broker.createTopic("events", 12);
      produce(broker, events);
      for (int instances = 1; instances <= 3; instances++) {
        Path work = dir.resolve("run-" + instances);
        Files.createDirectories(work);
        Path sink = work.resolve("sink");
        Path pipeline = work.resolve("pipeline.yaml");
        Files.writeString(
            pipeline,
            """
            pipeline: group-bench-%d
            source:
              kafka:
                bootstrap-servers: %s
                topics: [events]
                assignment: group
                max-offsets-per-trigger: 50000
            format:
              json:
                schema: { id: long, user: string, amount: double, payload: string }
            sink:
              delta: { path: %s }
            quarantine:
              delta: { path: %s }
            checkpoint: %s
            trigger: { available-now: true }
            """
                .formatted(
                    instances,
                    broker.bootstrapServers(),
                    sink,
                    work.resolve("quarantine"),
                    work.resolve("checkpoint")));
        List<Process> running = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
          running.add(
              ChildJvm.start(
                  List.of("-Xmx512m", "-XX:+UseParallelGC"),
                  "dev.tributary.service.cli.Main",
                  List.of("run", "--pipeline", pipeline.toString()),
                  work.resolve("instance-" + i + ".log"),
                  work));
        }
        for (Process p : running) {
          if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        }
        report(instances, sink, events);
      }
    }
  }

  private static void report(int instances, Path sink, int events) throws Exception {
    long first = Long.MAX_VALUE;
    long last = 0;
    long firstRecords = 0;
    long total = 0;
    try (ObjectStore store = ObjectStores.open(sink.toString(), null)) {
      DeltaLog log = new DeltaLog(store);
      for (long v : log.commitsAfter(0)) {
        for (Action a : log.readCommit(v)) {
          if (a instanceof CommitInfo info) {
            long at = ((Number) info.values().get("timestamp")).longValue();
            long records = records(String.valueOf(info.values().get("offsets")));
            total += records;
            if (at < first) {
              first = at;
              firstRecords = records;
            }
            last = Math.max(last, at);
          }
        }
      }
    }
    double seconds = Math.max(1, last - first) / 1000.0;
    System.out.printf(
        "GROUP-BENCH instances=%d records=%d (produced %d) first-to-last-commit=%.1fs rate=%.0f records/s%n",
        instances, total, events, seconds, (total - firstRecords) / seconds);
  }

  private static long records(String offsets) {
    long n = 0;
    for (String range : offsets.split(",")) {
      String[] startEnd = range.substring(range.lastIndexOf(':') + 1).split("-");
      if (startEnd.length == 2) {
        n += Long.parseLong(startEnd[1]) - Long.parseLong(startEnd[0]);
      }
    }
    return n;
  }

  private static void produce(KafkaBrokerProcess broker, int events) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    String payload = "x".repeat(120);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < events; i++) {
        String json =
            "{\"id\":"
                + i
                + ",\"user\":\"u"
                + (i % 5000)
                + "\",\"amount\":"
                + (i % 997)
                + ".25,\"payload\":\""
                + payload
                + "\"}";
        producer.send(
            new ProducerRecord<>("events", i % 12, null, json.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }
}
