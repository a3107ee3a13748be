package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading a folder: bad files become FAILED entries with their reason, never a failed service. */
class ServedPipelinesTest {
  @TempDir Path dir;

  private ServeSettings settings(Path pipelines) {
    return new ServeSettings(
        pipelines,
        Optional.of("secret"),
        new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)),
        Duration.ofSeconds(5),
        Duration.ofSeconds(1),
        Duration.ofSeconds(5));
  }

  private String pipeline(String id, String transform) {
    return """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: localhost:1
            topics: [t]
        format:
          json:
            schema:
              id: long
        %s
        sink:
          delta:
            path: %s/%s
        checkpoint: %s/%s-checkpoint
        """
        .formatted(id, transform, dir, id, dir, id);
  }

  @Test
  void loadsEveryFileAndKeepsTheBadOnesAsFailed() throws Exception {
    Files.writeString(dir.resolve("a.yaml"), pipeline("alpha", ""));
    Files.writeString(dir.resolve("b.yml"), pipeline("alpha", ""));
    Files.writeString(
        dir.resolve("c.yaml"), pipeline("gamma", "transform:\n  - filter: \"nope > 1\""));
    Files.writeString(dir.resolve("d.yaml"), "pipeline: delta\n");
    Files.writeString(dir.resolve("notes.txt"), "not a pipeline");

    ServedPipelines served =
        new ServedPipelines(
            settings(dir), new SimpleMeterRegistry(), new Maintenance(), Clock.systemUTC());

    assertThat(served.all())
        .extracting(ManagedPipeline::id)
        .containsExactly("alpha", "alpha@b.yml", "gamma", "d");
    assertThat(served.find("alpha").orElseThrow().runnable()).isTrue();
    assertThat(served.find("alpha").orElseThrow().state()).isEqualTo(PipelineState.STOPPED);
    PipelineStatus duplicate = served.find("alpha@b.yml").orElseThrow().status();
    assertThat(duplicate.state()).isEqualTo(PipelineState.FAILED);
    assertThat(duplicate.reason())
        .isEqualTo(
            "pipeline id 'alpha' of "
                + dir.resolve("b.yml")
                + " is already used by "
                + dir.resolve("a.yaml")
                + "; every pipeline file needs its own id (the 'pipeline' key).");
    PipelineStatus uncompilable = served.find("gamma").orElseThrow().status();
    assertThat(uncompilable.state()).isEqualTo(PipelineState.FAILED);
    assertThat(uncompilable.reason()).contains("gamma").contains("nope");
    assertThat(uncompilable.sink()).isEqualTo(dir + "/gamma");
    PipelineStatus unparsable = served.find("d").orElseThrow().status();
    assertThat(unparsable.state()).isEqualTo(PipelineState.FAILED);
    assertThat(unparsable.reason()).contains("missing required key 'source'");
    assertThat(unparsable.sink()).isNull();
  }

  @Test
  void failsThePipelinesThatShareStorageAndServesTheOthers() throws Exception {
    Files.writeString(dir.resolve("a.yaml"), pipeline("alpha", ""));
    // beta's checkpoint lies inside alpha's sink table: alpha's vacuum would delete it.
    Files.writeString(
        dir.resolve("b.yaml"),
        pipeline("beta", "")
            .replace(dir + "/beta-checkpoint", dir + "/alpha/../alpha/_beta-checkpoint/"));
    Files.writeString(dir.resolve("c.yaml"), pipeline("gamma", ""));

    ServedPipelines served =
        new ServedPipelines(
            settings(dir), new SimpleMeterRegistry(), new Maintenance(), Clock.systemUTC());

    assertThat(served.find("gamma").orElseThrow().runnable()).isTrue();
    assertThat(served.find("gamma").orElseThrow().state()).isEqualTo(PipelineState.STOPPED);
    String rule =
        ". Every table and checkpoint belongs to exactly one pipeline, so that one pipeline's vacuum,"
            + " rewrite or checkpoint reset never touches another's files (to write several topics into one table,"
            + " list them in one pipeline). Give each pipeline its own locations, side by side, and restart the"
            + " service.";
    PipelineStatus alpha = served.find("alpha").orElseThrow().status();
    assertThat(alpha.state()).isEqualTo(PipelineState.FAILED);
    assertThat(alpha.reason())
        .isEqualTo(
            "Pipeline alpha ("
                + dir.resolve("a.yaml")
                + ") shares storage with"
                + " another pipeline of the folder: its sink.delta.path '"
                + dir
                + "/alpha' contains the checkpoint '"
                + dir
                + "/alpha/../alpha/_beta-checkpoint/' of pipeline beta ("
                + dir.resolve("b.yaml")
                + ")"
                + rule);
    PipelineStatus beta = served.find("beta").orElseThrow().status();
    assertThat(beta.state()).isEqualTo(PipelineState.FAILED);
    assertThat(beta.reason())
        .isEqualTo(
            "Pipeline beta ("
                + dir.resolve("b.yaml")
                + ") shares storage with"
                + " another pipeline of the folder: its checkpoint '"
                + dir
                + "/alpha/../alpha/_beta-checkpoint/' is"
                + " inside the sink.delta.path '"
                + dir
                + "/alpha' of pipeline alpha ("
                + dir.resolve("a.yaml")
                + ")"
                + rule);
    assertThat(served.find("beta").orElseThrow().runnable()).isFalse();
  }

  @Test
  void aFileWhoseLoadingThrowsAnErrorIsFailedAndTheOthersAreServed() throws Exception {
    Files.writeString(dir.resolve("a.yaml"), pipeline("alpha", ""));
    Files.writeString(dir.resolve("b.yaml"), pipeline("deep", ""));
    Files.writeString(dir.resolve("c.yaml"), pipeline("heavy", ""));
    Files.writeString(dir.resolve("d.yaml"), pipeline("buggy", ""));
    Files.writeString(dir.resolve("e.yaml"), pipeline("omega", ""));
    // Each stage of loading throws something no "catch (RuntimeException)" catches, or a bug's
    // exception.
    ServedPipelines.Loader failing =
        new ServedPipelines.Loader() {
          @Override
          public PipelineSpec parse(Path file) {
            if (file.getFileName().toString().equals("b.yaml")) {
              throw new StackOverflowError();
            }
            return ServedPipelines.Loader.REAL.parse(file);
          }

          @Override
          public PipelineLauncher compile(PipelineSpec spec) {
            if (spec.id().equals("heavy")) {
              throw new OutOfMemoryError("Java heap space");
            }
            if (spec.id().equals("buggy")) {
              throw new IllegalStateException("schema builder bug");
            }
            return ServedPipelines.Loader.REAL.compile(spec);
          }
        };

    ServedPipelines served =
        new ServedPipelines(
            settings(dir),
            new SimpleMeterRegistry(),
            new Maintenance(),
            Clock.systemUTC(),
            failing);

    assertThat(served.all())
        .extracting(ManagedPipeline::id)
        .containsExactly("alpha", "b", "heavy", "buggy", "omega");
    assertThat(served.find("alpha").orElseThrow().runnable()).isTrue();
    assertThat(served.find("omega").orElseThrow().runnable()).isTrue();
    PipelineStatus deep = served.find("b").orElseThrow().status();
    assertThat(deep.state()).isEqualTo(PipelineState.FAILED);
    assertThat(deep.reason())
        .isEqualTo(
            "loading the file failed with StackOverflowError; the file may be too large"
                + " or too deeply nested. Simplify it and restart the service; the other pipelines are served.");
    PipelineStatus heavy = served.find("heavy").orElseThrow().status();
    assertThat(heavy.state()).isEqualTo(PipelineState.FAILED);
    assertThat(heavy.reason())
        .startsWith("loading the file failed with OutOfMemoryError (Java heap space);");
    assertThat(served.find("heavy").orElseThrow().runnable()).isFalse();
    assertThat(served.find("buggy").orElseThrow().status().reason())
        .isEqualTo("schema builder bug");
  }

  @Test
  void refusesAMissingFolder() {
    Path missing = dir.resolve("missing");
    assertThatThrownBy(
            () ->
                new ServedPipelines(
                    settings(missing),
                    new SimpleMeterRegistry(),
                    new Maintenance(),
                    Clock.systemUTC()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Cannot start serve: pipelines directory "
                + missing.toAbsolutePath()
                + " does not exist or is not a directory; pass --pipelines-dir with a folder of pipeline YAML files.");
  }

  @Test
  void settingsNeverShowTheToken() {
    assertThat(settings(dir).toString()).doesNotContain("secret").contains("apiToken=(set)");
  }
}
