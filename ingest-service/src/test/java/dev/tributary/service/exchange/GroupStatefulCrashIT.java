package dev.tributary.service.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.CrashRuns;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.SeedEvents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at every step of a stateful group-mode pipeline's batches: the seed query with {@code
 * assignment: group} runs in a child JVM that halts (exit 137, as kill -9) at each crash point of
 * stage 1 (between two source records, after the quarantine commit, after the Kafka transaction)
 * and of the sub-pipelines of stage 2 (the exclusive engine's seven points), is restarted each
 * time, then drained with available-now. Fresh events are produced before each run, enough for its
 * crash point to be reached. The sink must hold exactly the windows a direct computation gives
 * (every event once after de-duplication, no window twice, none missing) and the quarantine table
 * every malformed record exactly once, whatever the transactions, the state stores and the logs
 * went through.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GroupStatefulCrashIT {
  private static final String[] POINTS = {
    CrashPoints.EXCHANGE_MID_BATCH,
    CrashPoints.EXCHANGE_AFTER_QUARANTINE_COMMIT,
    CrashPoints.EXCHANGE_AFTER_KAFKA_COMMIT,
    CrashPoints.AFTER_OFFSETS_LOG,
    CrashPoints.MID_BATCH,
    CrashPoints.AFTER_DATA_FILES,
    CrashPoints.AFTER_QUARANTINE_COMMIT,
    CrashPoints.AFTER_SINK_COMMIT,
    CrashPoints.AFTER_STATE_COMMIT,
    CrashPoints.AFTER_COMMITS_LOG
  };
  private static final int PARTITIONS = 4;
  private static final int PER_RUN = 200;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final Random random = new Random(20261201L);

  /** Every 6th re-sent, every 25th malformed, 6 s of event time apart with up to 90 s of jitter. */
  private final SeedEvents events = new SeedEvents(20261201L, PARTITIONS, 6, 90, 6, 25);

  @TempDir Path dir;

  @Test
  void seedQueryIsExactAfterAHaltAtEveryStepOfBothStages() throws Exception {
    String topic = broker.createTopic("group-crash", PARTITIONS);
    Path pipeline = dir.resolve("pipeline.yaml");
    Files.writeString(
        pipeline,
        """
        pipeline: group-crash
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            assignment: group
            max-offsets-per-trigger: 40
            properties:
              session.timeout.ms: "2000"
              heartbeat.interval.ms: "500"
              transaction.timeout.ms: "2000"
        format:
          json:
            schema: %s
        %s
        sink:
          delta: { path: %s/sink }
        quarantine:
          delta: { path: %s/quarantine }
        checkpoint: %s/checkpoint
        trigger: { processing-time: 100ms }
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                SeedEvents.SCHEMA,
                SeedEvents.QUERY.strip(),
                dir,
                dir,
                dir));
    List<String> jvm =
        List.of(
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dtributary.state.dir=" + dir.resolve("state"));
    for (String point : POINTS) {
      events.produce(broker, topic, PER_RUN);
      boolean perRecord =
          point.equals(CrashPoints.EXCHANGE_MID_BATCH) || point.equals(CrashPoints.MID_BATCH);
      String crashAt = point + ":" + (perRecord ? 1 + random.nextInt(100) : 1 + random.nextInt(3));
      List<String> options = new ArrayList<>(jvm);
      options.add("-Dtributary.test.crash-at=" + crashAt);
      Path log = dir.resolve("run-" + point + ".log");
      Process child =
          ChildJvm.start(
              options,
              "dev.tributary.service.cli.Main",
              List.of("run", "--pipeline", pipeline.toString()),
              log,
              dir);
      CrashRuns.assertHaltedAt(child, crashAt, log);
    }
    events.produce(broker, topic, PER_RUN);
    Path log = dir.resolve("drain.log");
    Process drain =
        ChildJvm.start(
            jvm,
            "dev.tributary.service.cli.Main",
            List.of("run", "--pipeline", pipeline.toString(), "--available-now"),
            log,
            dir);
    assertThat(drain.waitFor(120, TimeUnit.SECONDS))
        .as("drain finished; log:%n%s", Files.readString(log))
        .isTrue();
    assertThat(drain.exitValue()).as("drain exit code; log:%n%s", Files.readString(log)).isZero();

    assertThat(SeedEvents.windows(dir.resolve("sink"))).isEqualTo(events.expected());
    List<String> quarantined = SeedEvents.quarantined(dir.resolve("quarantine"));
    assertThat(quarantined).doesNotHaveDuplicates();
    assertThat(quarantined).containsExactlyInAnyOrderElementsOf(events.malformed());
  }
}
