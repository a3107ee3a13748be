package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.ChildJvm;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The artifact users run: {@code target/tributary.jar} (the Spring Boot jar, as {@code ./tributary}
 * and the container run it, with the service's runtime dependencies only), not the test class path
 * every other IT uses. A bronze pipeline lands Kafka in a Delta table (Parquet written with the
 * jar's codecs), then a silver pipeline reads that table as its source (Parquet read back) and
 * writes a windowed aggregate: a dependency the build left out of the jar (a class only test scope
 * brings) fails here, and nowhere else.
 */
class PackagedJarIT {
  private static final int EVENTS = 600;
  private static final Instant START = Instant.parse("2026-11-01T00:00:00Z");

  @TempDir Path dir;

  /**
   * RocksDB comes once, from tributary-checkpoint's jar, with the natives of the platforms the
   * image ships (issue 27's size budget): a build that brings the original rocksdbjni jar back, or
   * loses the natives, fails here.
   */
  @Test
  void theServiceJarCarriesRocksDbOnceWithTheShippedPlatformsNativesOnly() throws Exception {
    Path jar = Path.of("target/tributary.jar").toAbsolutePath();
    List<String> libs = new ArrayList<>();
    List<String> natives = new ArrayList<>();
    try (ZipFile service = new ZipFile(jar.toFile())) {
      for (ZipEntry entry : Collections.list(service.entries())) {
        if (entry.getName().startsWith("BOOT-INF/lib/")) {
          libs.add(entry.getName().substring("BOOT-INF/lib/".length()));
        }
      }
      String checkpoint =
          libs.stream()
              .filter(l -> l.startsWith("tributary-checkpoint-"))
              .findFirst()
              .orElseThrow();
      try (ZipInputStream nested =
          new ZipInputStream(
              service.getInputStream(service.getEntry("BOOT-INF/lib/" + checkpoint)))) {
        for (ZipEntry entry = nested.getNextEntry(); entry != null; entry = nested.getNextEntry()) {
          if (entry.getName().startsWith("librocksdbjni")) {
            natives.add(entry.getName());
          }
        }
      }
    }
    assertThat(libs).noneMatch(l -> l.startsWith("rocksdbjni"));
    assertThat(natives)
        .contains("librocksdbjni-linux64.so", "librocksdbjni-linux-aarch64.so")
        .noneMatch(n -> n.matches(".*(ppc64le|s390x|riscv64|musl).*"));
  }

  @Test
  void theServiceJarLandsKafkaInDeltaAndReadsItBack() throws Exception {
    Path jar = Path.of("target/tributary.jar").toAbsolutePath();
    assertThat(jar).as("the service jar (built by the package phase: run mvn verify)").exists();
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String topic = broker.createTopic("packaged", 2);
    List<String> values = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      values.add(
          "{\"id\":%d,\"kind\":\"k%d\",\"event_ts\":\"%s\"}"
              .formatted(i, i % 3, START.plusSeconds(6L * i)));
    }
    broker.send(topic, 0, values.subList(0, EVENTS / 2));
    broker.send(topic, 1, values.subList(EVENTS / 2, EVENTS));

    Path bronze = dir.resolve("bronze");
    Path silver = dir.resolve("silver");
    Files.writeString(
        dir.resolve("bronze.yaml"),
        """
        pipeline: packaged-bronze
        source:
          kafka: { bootstrap-servers: %s, topics: [%s], max-offsets-per-trigger: 200 }
        format:
          json: { schema: { id: long, kind: string, event_ts: timestamp } }
        sink:
          delta: { path: "%s" }
        checkpoint: %s/checkpoints/bronze
        """
            .formatted(broker.bootstrapServers(), topic, bronze, dir));
    Files.writeString(
        dir.resolve("silver.yaml"),
        """
        pipeline: packaged-silver
        source:
          delta: { path: "%s" }
        watermark: { column: event_ts, delay: 1 minute }
        aggregate:
          window: { column: event_ts, size: 10 minutes }
          group-by: [kind]
          measures: { events: count() }
        output-mode: append
        sink:
          delta: { path: "%s" }
        checkpoint: %s/checkpoints/silver
        """
            .formatted(bronze, silver, dir));

    runJar(jar, "bronze");
    assertThat(TableContents.ids(bronze)).isEqualTo(LongStream.range(0, EVENTS).boxed().toList());
    runJar(jar, "silver");
    long counted = 0;
    try (ObjectStore store = ObjectStores.open(silver.toString(), null)) {
      for (Object[] row : TableContents.rows(store)) {
        // columns: window_start, window_end, kind, events
        counted += (Long) row[3];
      }
    }
    // an hour of events, 10 a minute; the watermark ends at 58:54, so the windows up to 50:00 are
    // emitted and the last one stays open
    assertThat(counted).isEqualTo(500);
  }

  private void runJar(Path jar, String pipeline) throws Exception {
    Path log = dir.resolve(pipeline + ".log");
    Process p =
        new ProcessBuilder(
                ChildJvm.javaBinary().toString(),
                "-Xmx256m",
                "-jar",
                jar.toString(),
                "run",
                "--pipeline",
                dir.resolve(pipeline + ".yaml").toString(),
                "--available-now")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean exited = p.waitFor(180, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly().waitFor();
    }
    assertThat(exited).as("%s finished; log:%n%s", pipeline, ChildJvm.tail(log)).isTrue();
    assertThat(p.exitValue()).as("%s exit code; log:%n%s", pipeline, ChildJvm.tail(log)).isZero();
  }
}
