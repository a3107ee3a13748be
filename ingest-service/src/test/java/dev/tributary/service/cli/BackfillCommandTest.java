package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary backfill} through {@link Main#run}: what is refused before anything is read or
 * written, with its exit code and message (the runs themselves: BackfillIT, BackfillKillIT).
 */
class BackfillCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  @TempDir Path dir;
  private Path kafkaPipeline;
  private Path deltaPipeline;

  @BeforeEach
  void pipelines() throws Exception {
    kafkaPipeline = dir.resolve("clicks.yaml");
    Files.writeString(
        kafkaPipeline,
        """
        pipeline: clicks
        source:
          kafka: { bootstrap-servers: "127.0.0.1:1", topics: [clicks] }
        format:
          json: { schema: { id: long, event_ts: timestamp } }
        watermark: { column: event_ts, delay: 10 minutes }
        sink:
          delta: { path: %s/clicks }
        checkpoint: %s/checkpoints/clicks
        """
            .formatted(dir, dir));
    deltaPipeline = dir.resolve("silver.yaml");
    Files.writeString(
        deltaPipeline,
        """
        pipeline: silver
        source:
          delta: { path: %s/bronze }
        sink:
          delta: { path: %s/silver }
        checkpoint: %s/checkpoints/silver
        """
            .formatted(dir, dir, dir));
  }

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private String[] backfill(Path pipeline, String from, String to, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of("backfill", "--pipeline", pipeline.toString(), "--from", from, "--to", to));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void anEmptyRangeIsRefusedWithExitCode2() {
    assertThat(
            run(
                backfill(
                    kafkaPipeline,
                    "2026-11-02T00:00:00Z",
                    "2026-11-01T00:00:00Z",
                    "--into",
                    dir.resolve("x").toString())))
        .isEqualTo(2);
    assertThat(err())
        .contains("--to 2026-11-01T00:00:00Z is not after --from 2026-11-02T00:00:00Z");
    assertThat(Files.exists(dir.resolve("x"))).isFalse();
  }

  @Test
  void anInstantThatDoesNotParseIsRefusedNamingTheOption() {
    assertThat(run(backfill(kafkaPipeline, "2026-11-01T00:00:00Z", "tomorrow", "--into", "/tmp/x")))
        .isEqualTo(2);
    assertThat(err()).contains("--to 'tomorrow' is not an instant");
  }

  @Test
  void aPipelineWithoutEventTimeIsRefusedSayingWhy() {
    assertThat(
            run(
                backfill(
                    deltaPipeline,
                    "2026-11-01T00:00:00Z",
                    "2026-11-02T00:00:00Z",
                    "--into",
                    dir.resolve("x").toString())))
        .isEqualTo(2);
    assertThat(err())
        .contains("Cannot backfill pipeline silver: it declares no event-time column")
        .contains("declare watermark: { column:");
  }

  @Test
  void theLiveTableIsNotATarget() {
    assertThat(
            run(
                backfill(
                    kafkaPipeline,
                    "2026-11-01T00:00:00Z",
                    "2026-11-02T00:00:00Z",
                    "--into",
                    dir.resolve("clicks").toString())))
        .isEqualTo(2);
    assertThat(err()).contains("that is the live pipeline's own table");
  }

  @Test
  void replaceRefusesAMissingLiveTableAndWritesNothing() {
    assertThat(
            run(
                backfill(
                    kafkaPipeline, "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "--replace")))
        .isEqualTo(2);
    assertThat(err())
        .contains("Cannot backfill pipeline clicks --replace: its table")
        .contains("does not exist");
    assertThat(Files.exists(dir.resolve("clicks/_delta_log"))).isFalse();
    assertThat(Files.exists(dir.resolve("clicks/_tributary_backfill"))).isFalse();
    assertThat(Files.exists(dir.resolve("checkpoints"))).isFalse();
  }

  @Test
  void replaceRefusesAnAppendOnlyTableByName() throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("clicks").toString(), null)) {
      DeltaTable.open(store, TableOptions.defaults())
          .create(
              StructType.of(
                  StructField.nullable("id", PrimitiveType.LONG),
                  StructField.nullable("event_ts", PrimitiveType.TIMESTAMP)),
              List.of(),
              Map.of("delta.appendOnly", "true"));
    }
    assertThat(
            run(
                backfill(
                    kafkaPipeline, "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "--replace")))
        .isEqualTo(2);
    assertThat(err()).contains("is append-only (delta.appendOnly=true)");
  }

  @Test
  void replaceRefusesWhatIntoRefuses() {
    assertThat(
            run(
                backfill(
                    deltaPipeline, "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "--replace")))
        .isEqualTo(2);
    assertThat(err()).contains("Cannot backfill pipeline silver: it declares no event-time column");
  }

  @Test
  void usageErrorsPrintTheUsage() {
    assertThat(run("backfill", "--pipeline", kafkaPipeline.toString(), "--to", "x")).isEqualTo(2);
    assertThat(err())
        .contains("backfill needs --from T1")
        .contains("tributary backfill --pipeline");
    err.reset();
    assertThat(run(backfill(kafkaPipeline, "a", "b"))).isEqualTo(2);
    assertThat(err()).contains("backfill needs --into PATH or --replace");
    err.reset();
    assertThat(run(backfill(kafkaPipeline, "a", "b", "--into", "/x", "--replace"))).isEqualTo(2);
    assertThat(err()).contains("--into and --replace exclude each other");
  }
}
