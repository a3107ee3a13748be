package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.demo.ClickEvents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tributary demo attribution` end to end: its own broker, the left outer stream-stream join in
 * several batches; the table, read by Delta Kernel (not by the demo's own reader), holds exactly
 * the produced streams' join (every attributed pair, and the clicks without a purchase that the
 * last batch's watermark has passed), the late-events table exactly the late clicks, the quarantine
 * exactly the malformed records of both topics at their partition@offset.
 */
class AttributionDemoIT {
  private static final int CLICKS = 3_000;
  @TempDir Path dir;

  @Test
  void joinsTheProducedClicksAndPurchases() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path output = dir.resolve("demo");
    int code =
        Main.run(
            new String[] {
              "demo",
              "attribution",
              "--events",
              Integer.toString(CLICKS),
              "--dir",
              output.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("stderr: %s%nstdout: %s", err, printed).isZero();

    ClickEvents.Streams streams =
        ClickEvents.generate(CLICKS, Instant.parse("2026-11-01T08:00:00Z"), 25);
    long latePurchases = streams.purchases().stream().filter(p -> p != null && p.late()).count();
    assertThat(printed)
        .contains(streams.describe())
        .contains("equal to the join of the produced streams: yes")
        .contains(String.format("%,d purchases counted (join.right.lateRows)", latePurchases));

    Path file = output.resolve("attribution-demo.yaml");
    PipelineSpec spec =
        PipelineParser.parse(
            Files.readString(file),
            file.toString(),
            Map.of("KAFKA_BOOTSTRAP", "unused:9092", "DEMO_DIR", output.toString()));
    List<Map<String, Object>> rows = kernelRows(output.resolve("tables/attribution"));
    List<String> expected = streams.expectedRows(AttributionDemo.writtenUpTo(spec));
    assertThat(AttributionDemo.show(rows)).isEqualTo(expected);
    assertThat(expected).as("attributed purchases").anyMatch(r -> !r.endsWith(" -"));
    assertThat(expected).as("clicks written without a purchase").anyMatch(r -> r.endsWith(" -"));
    assertThat(rows.stream().map(r -> r.get("click_id")).distinct().count())
        .as("some clicks still wait in state")
        .isLessThan(streams.joinedClicks().size());

    List<String> lateClicks =
        streams.clicks().stream().filter(c -> c != null && c.late()).map(c -> c.clickId()).toList();
    assertThat(lateClicks).isNotEmpty();
    assertThat(latePurchases).isPositive();
    assertThat(
            kernelRows(output.resolve("tables/attribution-late")).stream()
                .map(r -> (String) r.get("click_id"))
                .toList())
        .containsExactlyInAnyOrderElementsOf(lateClicks);

    List<String> malformed = new ArrayList<>();
    malformed(malformed, "main", AttributionDemo.CLICKS, streams.clicks());
    malformed(malformed, "join[0]", AttributionDemo.PURCHASES, streams.purchases());
    assertThat(malformed).hasSizeGreaterThan(2);
    assertThat(
            kernelRows(output.resolve("tables/attribution-quarantine")).stream()
                .map(
                    q ->
                        q.get("input")
                            + " "
                            + q.get("topic")
                            + " "
                            + q.get("partition")
                            + "@"
                            + q.get("offset"))
                .toList())
        .containsExactlyInAnyOrderElementsOf(malformed);
    assertThat(printed).contains("@").contains("value: {\"user_id\"");
  }

  /** Record i of a topic went to partition i % 3 at offset i / 3 (the demo's round robin). */
  private static void malformed(List<String> out, String input, String topic, List<?> parsed) {
    for (int i = 0; i < parsed.size(); i++) {
      if (parsed.get(i) == null) {
        out.add(input + " " + topic + " " + (i % 3) + "@" + (i / 3));
      }
    }
  }

  private static List<Map<String, Object>> kernelRows(Path table) throws Exception {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      KernelReader kernel = new KernelReader(store);
      List<String> columns = kernel.columnNames();
      List<Map<String, Object>> rows = new ArrayList<>();
      for (Object[] r : kernel.rows()) {
        Map<String, Object> named = new TreeMap<>();
        for (int i = 0; i < columns.size(); i++) {
          named.put(columns.get(i), r[i]);
        }
        rows.add(named);
      }
      return rows;
    }
  }
}
