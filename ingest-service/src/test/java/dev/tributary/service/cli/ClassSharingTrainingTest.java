package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class-sharing training ({@code class-sharing-training}): it must succeed without a
 * broker (the launcher keeps the archive only then) and run the write path for real.
 */
class ClassSharingTrainingTest {
  @TempDir Path dir;

  @Test
  void trainsWithoutABrokerOnTheProjectsExamplePipeline() {
    CommandLine cli = new CommandLine();
    assertThat(cli.run("class-sharing-training", Path.of("../pipelines/orders.yaml").toString()))
        .as(cli.err())
        .isZero();
  }

  @Test
  void theDeltaRunCommitsABatchToItsSinkTable() throws Exception {
    ClassSharingTraining.deltaToDelta(dir);
    try (Stream<Path> commits = Files.list(dir.resolve("checkpoint/commits"))) {
      assertThat(commits).as("the commits log").isNotEmpty();
    }
    try (Stream<Path> files = Files.list(dir.resolve("sink"))) {
      assertThat(files.filter(f -> f.toString().endsWith(".parquet"))).isNotEmpty();
    }
  }

  @Test
  void anInvalidPipelineFileFailsTheTraining() throws Exception {
    Path file = dir.resolve("broken.yaml");
    Files.writeString(file, "pipeline: broken\n");
    CommandLine cli = new CommandLine();
    assertThat(cli.run("class-sharing-training", file.toString())).isNotZero();
  }
}
