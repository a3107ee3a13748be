package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaBrokerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary run} through a broker outage, two child JVMs on one broker that is killed: one
 * with the default {@code --max-outage} rides out an outage longer than the Kafka client's metadata
 * timeout (which used to end the run with exit 1; set to 5 s here instead of the default 30 s, so
 * the outage need not last half a minute): its run fails, the supervisor restarts it, and once the
 * broker is back every record lands exactly once; SIGTERM then lets it stop with exit code 0. The
 * other, with {@code --max-outage 8s}, gives up after 8 s with exit code 1 and a message that says
 * so.
 */
class RunRidesOutBrokerOutageIT {
  private static final Duration SLOW = Duration.ofMinutes(2);
  private static final String TOPIC = "orders";
  private static final int BEFORE = 200;
  private static final int AFTER = 200;
  private static final List<String> JVM =
      List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  @TempDir Path dir;
  private KafkaBrokerProcess broker;
  private final List<Process> children = new ArrayList<>();

  @AfterEach
  void stopAll() throws Exception {
    for (Process p : children) {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor();
      }
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void runRidesOutAnOutageWithinItsLimitAndGivesUpPastIt() throws Exception {
    broker = KafkaBrokerProcess.start(dir.resolve("broker"));
    broker.createTopic(TOPIC, 2);
    produce(0, BEFORE);
    Path patientLog = dir.resolve("patient.log");
    Process patient = run("patient", patientLog, List.of());
    Path hastyLog = dir.resolve("hasty.log");
    Process hasty = run("hasty", hastyLog, List.of("--max-outage", "8s"));
    await("both runs hold the records before the outage")
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(300))
        .failFast(
            "a run exited:\n" + ChildJvm.tail(patientLog) + ChildJvm.tail(hastyLog),
            () -> !patient.isAlive() || !hasty.isAlive())
        .until(() -> ids("patient").size() >= BEFORE && ids("hasty").size() >= BEFORE);

    // Idle runs (nothing left to read) are between batches: the outage meets them planning.
    broker.kill();

    assertThat(hasty.waitFor(60, TimeUnit.SECONDS))
        .as("hasty gave up; log:%n%s", ChildJvm.tail(hastyLog))
        .isTrue();
    assertThat(hasty.exitValue()).as(ChildJvm.tail(hastyLog)).isEqualTo(1);
    assertThat(Files.readString(hastyLog))
        .contains("Pipeline hasty DEGRADED: cannot reach Kafka at " + broker.bootstrapServers())
        .contains("tributary: Pipeline hasty gave up after an outage of")
        .contains("which reached the limit of 8 seconds (--max-outage)")
        .contains("raise --max-outage");

    await("the patient run's first failed attempt, ridden out")
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .failFast("the patient run exited:\n" + ChildJvm.tail(patientLog), () -> !patient.isAlive())
        .until(
            () ->
                Files.readString(patientLog)
                    .contains("Pipeline patient failed (attempt 1), restarting in"));
    assertThat(Files.readString(patientLog))
        .as("the failure that used to end the run")
        .contains("did not answer a metadata request within 5s");

    broker.restart();
    produce(BEFORE, AFTER);
    await("every record in the patient run's table")
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .failFast("the patient run exited:\n" + ChildJvm.tail(patientLog), () -> !patient.isAlive())
        .until(() -> ids("patient").size() >= BEFORE + AFTER);
    assertThat(ids("patient"))
        .as("every record once")
        .isEqualTo(LongStream.range(0, BEFORE + AFTER).boxed().toList());
    await("the recovery is said")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Files.readString(patientLog)
                    .contains("Pipeline patient is RUNNING again after an outage of"));

    patient.destroy(); // SIGTERM
    assertThat(patient.waitFor(60, TimeUnit.SECONDS)).as("stopped").isTrue();
    assertThat(patient.exitValue())
        .as("a graceful stop; log:%n%s", ChildJvm.tail(patientLog))
        .isZero();
    assertThat(Files.readString(patientLog))
        .contains("tributary: SIGTERM received: stopping after the batch in progress");
  }

  private Process run(String pipeline, Path log, List<String> options) throws IOException {
    Path file = dir.resolve(pipeline + ".yaml");
    Files.writeString(
        file,
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            properties: { default.api.timeout.ms: "5000" }
        format:
          json:
            schema:
              id: long
        sink:
          delta: { path: "%s" }
        checkpoint: "%s"
        trigger: { processing-time: 500ms }
        """
            .formatted(
                pipeline,
                broker.bootstrapServers(),
                TOPIC,
                table(pipeline),
                dir.resolve("checkpoints/" + pipeline)));
    List<String> args = new ArrayList<>(List.of("run", "--pipeline", file.toString()));
    args.addAll(options);
    Process p =
        ChildJvm.start(
            JVM, Main.class.getName(), args, log, dir, Map.of("TRIBUTARY_STALL_AFTER", "2s"));
    children.add(p);
    return p;
  }

  private Path table(String pipeline) {
    return dir.resolve("tables/" + pipeline);
  }

  private void produce(int from, int count) throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (int id = from; id < from + count; id++) {
        acks.add(
            producer.send(
                new ProducerRecord<>(TOPIC, Integer.toString(id), "{\"id\":" + id + "}")));
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get(60, TimeUnit.SECONDS);
      }
    }
  }

  /** The ids in a pipeline's table, sorted; a record written twice shows twice. */
  private List<Long> ids(String pipeline) throws Exception {
    Path table = table(pipeline);
    if (!Files.exists(table.resolve("_delta_log/00000000000000000000.json"))) {
      return List.of(); // the run has not committed its first batch yet
    }
    return TableContents.ids(table);
  }
}
