package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pipelines served together own disjoint locations. */
class PipelineFolderTest {

  private static PipelineSpec pipeline(String id, String sink, String checkpoint, String extra) {
    return PipelineParser.parse(
        """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: localhost:9092
            topics: [t]
        format:
          json:
            schema:
              id: long
        sink:
          delta: { path: "%s" }
        checkpoint: "%s"
        %s
        """
            .formatted(id, sink, checkpoint, extra),
        id + ".yaml",
        Map.of());
  }

  private static Map<Path, PipelineSpec> folder(PipelineSpec... specs) {
    Map<Path, PipelineSpec> out = new LinkedHashMap<>();
    for (PipelineSpec spec : specs) {
      out.put(Path.of("pipelines", spec.id() + ".yaml"), spec);
    }
    return out;
  }

  @Test
  void disjointPipelinesDoNotConflict() {
    assertThat(
            PipelineFolder.conflicts(
                folder(
                    pipeline("a", "/t/a", "/c/a", ""),
                    pipeline("b", "/t/b", "/c/b", ""),
                    pipeline("c", "/t/a2", "/c/a-2", ""))))
        .isEmpty();
  }

  @Test
  void reportsBothPipelinesOfATableInsideAnotherPipelinesTable() {
    Map<Path, String> conflicts =
        PipelineFolder.conflicts(
            folder(
                pipeline("a", "/t/a", "/c/a", ""),
                pipeline("b", "/t/b", "/c/b", ""),
                pipeline("c", "file:///t/a/nested/", "/c/c", "")));

    String rule =
        ". Every table and checkpoint belongs to exactly one pipeline, so that one pipeline's vacuum,"
            + " rewrite or checkpoint reset never touches another's files (to write several topics into one table,"
            + " list them in one pipeline). Give each pipeline its own locations, side by side, and restart the"
            + " service.";
    assertThat(conflicts)
        .containsOnlyKeys(Path.of("pipelines/a.yaml"), Path.of("pipelines/c.yaml"));
    assertThat(conflicts.get(Path.of("pipelines/a.yaml")))
        .isEqualTo(
            "Pipeline a (pipelines/a.yaml) shares storage with another pipeline of the folder: its sink.delta.path"
                + " '/t/a' contains the sink.delta.path 'file:///t/a/nested/' of pipeline c (pipelines/c.yaml); its"
                + " sink.delta.path '/t/a' contains the quarantine.delta.path 'file:///t/a/nested-quarantine' of"
                + " pipeline c (pipelines/c.yaml)"
                + rule);
    assertThat(conflicts.get(Path.of("pipelines/c.yaml")))
        .isEqualTo(
            "Pipeline c (pipelines/c.yaml) shares storage with another pipeline of the folder: its sink.delta.path"
                + " 'file:///t/a/nested/' is inside the sink.delta.path '/t/a' of pipeline a (pipelines/a.yaml); its"
                + " quarantine.delta.path 'file:///t/a/nested-quarantine' is inside the sink.delta.path '/t/a' of"
                + " pipeline a (pipelines/a.yaml)"
                + rule);
  }

  @Test
  void refusesASharedSinkTableAndASharedCheckpoint() {
    Map<Path, String> conflicts =
        PipelineFolder.conflicts(
            folder(
                pipeline("a", "s3://lake/t/orders", "s3://lake/c/shared", ""),
                pipeline(
                    "b",
                    "s3://lake/t/orders/",
                    "s3://lake/c/./shared",
                    "quarantine: { delta: { path: s3://lake/q/b } }")));

    assertThat(conflicts.get(Path.of("pipelines/b.yaml")))
        .startsWith(
            "Pipeline b (pipelines/b.yaml) shares storage with another pipeline of the folder: its sink.delta.path"
                + " 's3://lake/t/orders/' is the same place as the sink.delta.path 's3://lake/t/orders' of pipeline a"
                + " (pipelines/a.yaml); its checkpoint 's3://lake/c/./shared' is the same place as the checkpoint"
                + " 's3://lake/c/shared' of pipeline a (pipelines/a.yaml). Every table");
    assertThat(conflicts)
        .containsOnlyKeys(Path.of("pipelines/a.yaml"), Path.of("pipelines/b.yaml"));
  }

  @Test
  void s3LocationsBehindDifferentEndpointsAreDifferentStores() {
    String other = "storage: { s3: { endpoint: \"http://127.0.0.1:9001\" } }";
    assertThat(
            PipelineFolder.conflicts(
                folder(
                    pipeline("a", "s3://lake/t/orders", "s3://lake/c/a", ""),
                    pipeline("b", "s3://lake/t/orders", "s3://lake/c/a", other))))
        .isEmpty();
  }
}
