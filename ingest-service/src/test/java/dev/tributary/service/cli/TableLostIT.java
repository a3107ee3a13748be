package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.TableContents;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile tester's case of issue 20: two batches committed, the sink table's folder deleted,
 * more records, {@code run} again. It must not re-create the table and go on (the earlier rows
 * would be gone, exit 0, nothing said): it exits 1 with what is missing and the safe ways on,
 * leaves no table behind, and the way "start over by deleting the checkpoint too" then lands every
 * record once. A table put back from a copy continues where it was.
 */
class TableLostIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;

  @Test
  void aDeletedSinkTableStopsTheRunAndTheCheckpointMustGoToo() throws Exception {
    String topic = broker.createTopic("table-lost", 2);
    Path file = pipeline(topic);
    broker.send(topic, 0, records(0, 30));
    broker.send(topic, 1, records(30, 60));
    assertThat(run(file).exitCode).isZero();
    assertThat(ids()).hasSize(60);

    deleteTree(dir.resolve("table"));
    broker.send(topic, 0, records(60, 90));
    Result refused = run(file);

    assertThat(refused.exitCode).as(refused.err).isEqualTo(1);
    assertThat(refused.err)
        .contains("Pipeline table-lost-it: the sink table at " + dir.resolve("table"))
        .contains("it does not exist any more: deleted")
        .contains("restore the table")
        .contains("source.kafka.starting-offsets: table")
        .contains("deleting the checkpoint too, and the pipeline's other tables");
    assertThat(dir.resolve("table").resolve("_delta_log"))
        .as("not re-created empty")
        .doesNotExist();

    deleteTree(dir.resolve("checkpoint"));
    deleteTree(dir.resolve("quarantine"));
    Result again = run(file);
    assertThat(again.exitCode).as(again.err).isZero();
    assertThat(ids()).as("every record still in Kafka, once").hasSize(90).doesNotHaveDuplicates();
  }

  @Test
  void aTablePutBackFromACopyOfItsLatestVersionContinues() throws Exception {
    String topic = broker.createTopic("table-restored", 1);
    Path file = pipeline(topic);
    broker.send(topic, 0, records(0, 20));
    assertThat(run(file).exitCode).isZero();
    Path copy = dir.resolve("copy");
    copyTree(dir.resolve("table"), copy);
    deleteTree(dir.resolve("table"));
    copyTree(copy, dir.resolve("table"));
    broker.send(topic, 0, records(20, 40));

    Result next = run(file);
    assertThat(next.exitCode).as(next.err).isZero();
    assertThat(ids()).hasSize(40).doesNotHaveDuplicates();
  }

  private Path pipeline(String topic) throws IOException {
    Path file = dir.resolve("pipeline.yaml");
    Files.writeString(
        file,
        """
        pipeline: table-lost-it
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 20
        format: { json: { schema: { id: long } } }
        sink: { delta: { path: %s } }
        quarantine: { delta: { path: %s } }
        checkpoint: %s
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                dir.resolve("table"),
                dir.resolve("quarantine"),
                dir.resolve("checkpoint")));
    return file;
  }

  private static List<String> records(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add("{\"id\":" + i + "}");
    }
    return out;
  }

  private List<Long> ids() throws IOException {
    try (ObjectStore store = ObjectStores.open(dir.resolve("table").toString(), null)) {
      return TableContents.rows(store).stream().map(r -> (Long) r[0]).toList();
    }
  }

  private record Result(int exitCode, String err) {}

  private static Result run(Path file) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", "--pipeline", file.toString(), "--available-now"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, err.toString(StandardCharsets.UTF_8));
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
