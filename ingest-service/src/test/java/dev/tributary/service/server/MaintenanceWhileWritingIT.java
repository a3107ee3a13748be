package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.interop.KernelReader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault suite: compaction and vacuum running on a schedule (every second) while a served
 * processing-time pipeline writes, against a real broker and a local-disk table.
 *
 * <p>The attack. Compaction commits {@code remove} + {@code add} (dataChange=false) between the
 * pipeline's appends, so any lost or double-counted file shows up as a missing or duplicated
 * record. Vacuum keeps the default 7-day retention: a shorter one is exactly what the retention
 * floor forbids, because a batch's written but uncommitted files would be deleted whenever a batch
 * outlasts it, and a test of that could only pass by luck. Instead the test makes vacuum's decision
 * depend on nothing but the log: after every chunk it backdates every file the current snapshot
 * references to 30 days ago, so a vacuum that misjudged which files are live (a stale snapshot, a
 * compaction committing between its log read and its listing) deletes live rows. Only committed
 * files are backdated, never a batch's file in flight: no real file in flight is 30 days old. A
 * 30-day-old file no commit references (what a crashed batch leaves) is planted too, so the test
 * also proves vacuum really ran and deleted.
 *
 * <p>At the end every record is in the table exactly once, read by our reader and by Delta Kernel.
 * The pacing is by awaiting progress (the rows committed, a compaction run), not by sleeping.
 */
class MaintenanceWhileWritingIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final int CHUNKS = 8;
  private static final int CHUNK = 150;
  private static final Instant LONG_AGO = Instant.now().minus(Duration.ofDays(30));

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  @TempDir Path dir;
  private ServedPipelines served;

  @AfterEach
  void stop() {
    if (served != null && served.isRunning()) {
      served.stop();
    }
  }

  private String pipeline(String topic) {
    return """
        pipeline: maintained
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 40
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/tables/maintained
        checkpoint: %s/checkpoints/maintained
        trigger: { processing-time: 100ms }
        maintenance:
          compaction: { schedule: "* * * * * *", min-files: 2 }
          vacuum: { schedule: "* * * * * *" }
        """
        .formatted(broker.bootstrapServers(), topic, dir, dir);
  }

  private double count(String metric, String outcome) {
    Counter counter = registry.find(metric).tag(MetricNames.OUTCOME, outcome).counter();
    return counter == null ? 0 : counter.count();
  }

  private double total(String metric) {
    Counter counter = registry.find(metric).counter();
    return counter == null ? 0 : counter.count();
  }

  private List<Long> ids(ObjectStore table) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (Object[] row : TableContents.rows(table)) {
      ids.add((Long) row[0]);
    }
    return ids;
  }

  /** Sets the modification time of every file the current snapshot references to 30 days ago. */
  private void backdateLiveFiles(ObjectStore store, Path table) throws Exception {
    Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    for (DataFile file : snapshot.files()) {
      try {
        Files.setLastModifiedTime(table.resolve(file.path()), FileTime.from(LONG_AGO));
      } catch (NoSuchFileException e) {
        // Only possible if vacuum already deleted a live file: the final comparison reports it.
      }
    }
  }

  @Test
  void everyRecordLandsExactlyOnceWhileCompactionAndVacuumRunEverySecond() throws Exception {
    String topic = broker.createTopic("maintained", 3);
    Path pipelines = Files.createDirectories(dir.resolve("pipelines"));
    Files.writeString(pipelines.resolve("maintained.yaml"), pipeline(topic));
    served =
        new ServedPipelines(
            new ServeSettings(
                pipelines,
                Optional.empty(),
                new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1)),
                Duration.ofSeconds(30),
                Duration.ofSeconds(5),
                Duration.ofSeconds(5)),
            registry,
            new Maintenance(),
            Clock.systemUTC());
    served.start();
    Path tablePath = dir.resolve("tables/maintained");

    try (ObjectStore table = ObjectStores.open(tablePath.toString(), null)) {
      int produced = 0;
      Path orphan = null;
      for (int chunk = 0; chunk < CHUNKS; chunk++) {
        for (int p = 0; p < 3; p++) {
          List<String> values = new ArrayList<>();
          for (int i = produced + p; i < produced + CHUNK; i += 3) {
            values.add("{\"id\":" + i + "}");
          }
          broker.send(topic, p, values);
        }
        produced += CHUNK;
        int expected = produced;
        double compactions = count(MetricNames.COMPACTION_RUNS, "success");
        await()
            .atMost(BOUND)
            .ignoreExceptions()
            .failFast(
                "the pipeline failed: " + served.find("maintained").orElseThrow().status().reason(),
                () -> served.find("maintained").orElseThrow().state() == PipelineState.FAILED)
            .untilAsserted(() -> assertThat(ids(table)).hasSizeGreaterThanOrEqualTo(expected));
        // At least one compaction between this chunk's appends and the next chunk's.
        await()
            .atMost(BOUND)
            .until(() -> count(MetricNames.COMPACTION_RUNS, "success") > compactions);
        if (orphan == null) {
          // What a batch that crashed before its commit leaves behind, long ago.
          orphan = tablePath.resolve("part-00000-left-by-a-crash.snappy.parquet");
          Files.write(orphan, new byte[] {1, 2, 3});
          Files.setLastModifiedTime(orphan, FileTime.from(LONG_AGO));
        }
        backdateLiveFiles(table, tablePath);
      }
      Path planted = orphan;
      await().atMost(BOUND).untilAsserted(() -> assertThat(planted).doesNotExist());
      double vacuums = count(MetricNames.VACUUM_RUNS, "success");
      await().atMost(BOUND).until(() -> count(MetricNames.VACUUM_RUNS, "success") > vacuums);
      served.stop();

      List<Long> expected = LongStream.range(0, produced).boxed().toList();
      assertThat(ids(table))
          .as("our reader")
          .hasSize(produced)
          .containsExactlyInAnyOrderElementsOf(expected);
      List<Long> kernel = new KernelReader(table).rows().stream().map(r -> (Long) r[0]).toList();
      assertThat(kernel)
          .as("Delta Kernel")
          .hasSize(produced)
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(total(MetricNames.COMPACTION_FILES)).as("files compaction replaced").isPositive();
      assertThat(count(MetricNames.VACUUM_RUNS, "failure")).isZero();
      assertThat(count(MetricNames.COMPACTION_RUNS, "failure")).isZero();
    }
  }
}
