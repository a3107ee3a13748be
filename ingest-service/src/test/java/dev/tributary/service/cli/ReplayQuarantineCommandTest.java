package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tributary replay-quarantine}: its output and exit codes (the protocol: replay tests). */
class ReplayQuarantineCommandTest {
  @TempDir Path dir;

  private final CommandLine cli = new CommandLine();

  private int run(String... args) {
    return cli.run(args);
  }

  private Path pipeline(String extra) throws Exception {
    Path file = dir.resolve("p.yaml");
    Files.writeString(
        file,
        """
        pipeline: replay-cli
        source: { kafka: { bootstrap-servers: 127.0.0.1:9, topics: [t] } }
        format: { json: { schema: { id: long, qty: long } } }
        sink: { delta: { path: "%s" } }
        quarantine: { delta: { path: "%s" } }
        checkpoint: "%s"
        %s
        """
            .formatted(dir.resolve("sink"), dir.resolve("q"), dir.resolve("cp"), extra));
    return file;
  }

  private void quarantine(String... values) throws Exception {
    try (ObjectStore store = ObjectStores.open(dir.resolve("q").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(QuarantineRows.SCHEMA, List.of(), Map.of());
      try (AppendTransaction tx = table.newAppend(new TransactionId("replay-cli@x", 0))) {
        for (int i = 0; i < values.length; i++) {
          tx.write(
              QuarantineRows.row(
                  new ConsumerRecord<>("t", 0, i, null, values[i].getBytes(StandardCharsets.UTF_8)),
                  "old error",
                  "replay-cli",
                  0,
                  Instant.EPOCH));
        }
        tx.commit(Map.of());
      }
    }
  }

  @Test
  void printsWhatWasReplayedAndWhatStillFailsPerError() throws Exception {
    quarantine("{\"id\":1,\"qty\":3000000000}", "{\"id\":2,\"qty\":5}", "{\"id\":", "{\"id\":4,");
    Path file = pipeline("");

    int code = run("replay-quarantine", "--pipeline", file.toString());

    assertThat(code).as(cli.err()).isZero();
    assertThat(cli.out())
        .contains("replay-quarantine replay-cli: read " + dir.resolve("q") + "@1 (4 records)")
        .contains("selected 4 records, run 1")
        .contains("replayed: 2 records -> 2 rows written to " + dir.resolve("sink") + " version ")
        .contains("still failing: 2 records (they stay in the quarantine)")
        .contains("1 record, e.g. t-0@2: malformed JSON")
        .contains("1 record, e.g. t-0@3: malformed JSON")
        .contains("quarantine: version 2 (replayed records removed, new errors recorded)");

    cli.reset();
    assertThat(run("replay-quarantine", "--pipeline", file.toString())).isZero();
    assertThat(cli.out()).contains("replayed: 0 records\n").contains("quarantine: unchanged");
  }

  @Test
  void aBadWhereOrAStatefulPipelineExitsTwoSayingWhy() throws Exception {
    quarantine("{\"id\":1,\"qty\":1}");

    int badWhere =
        run("replay-quarantine", "--pipeline", pipeline("").toString(), "--where", "qty > 1");
    assertThat(badWhere).isEqualTo(2);
    assertThat(cli.err())
        .contains("--where 'qty > 1' is not a predicate over the quarantine table's columns");

    cli.reset();
    int stateful =
        run("replay-quarantine", "--pipeline", pipeline("deduplicate: { keys: [id] }").toString());
    assertThat(stateful).isEqualTo(2);
    assertThat(cli.err())
        .contains("Pipeline replay-cli cannot run")
        .contains("replay-quarantine: watermark/deduplicate/aggregate");
  }

  @Test
  void withoutAPipelineFileItIsAUsageError() {
    assertThat(run("replay-quarantine")).isEqualTo(2);
    assertThat(cli.err())
        .contains("replay-quarantine needs --pipeline FILE")
        .contains("tributary replay-quarantine --pipeline PIPELINE.yaml [--where EXPR]");
  }

  @Test
  void withoutAQuarantineTableThereIsNothingToReplay() throws Exception {
    assertThat(run("replay-quarantine", "--pipeline", pipeline("").toString())).isZero();
    assertThat(cli.out())
        .contains("no quarantine table at " + dir.resolve("q") + " yet; nothing to replay");
  }
}
