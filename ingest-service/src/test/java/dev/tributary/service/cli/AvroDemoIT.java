package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.demo.SampleEvents;
import dev.tributary.service.engine.TableContents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary demo avro} end to end, in process: embedded broker and registry, the sample
 * events as Avro, the pipeline, the printed summary; the table holds exactly the well-formed events
 * (duplicates included, as in the JSON demo) and the quarantine the malformed ones.
 */
class AvroDemoIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  @Test
  void runsTheDemoJobOnAvroValuesAndReportsWhatHappened() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path output = dir.resolve("demo");

    int code =
        Main.run(
            new String[] {"demo", "avro", "--events", "3000", "--dir", output.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    SampleEvents.Batch sample =
        SampleEvents.generate(3000, Instant.parse("2026-11-01T08:00:00Z"), 7);
    List<String> expected = new ArrayList<>();
    for (byte[] v : sample.values()) {
      String row = row(v);
      if (row != null) {
        expected.add(row);
      }
    }
    assertThat(expected).hasSize(sample.valid() + sample.duplicates());
    assertThat(printed)
        .contains("Produced 3,000 Avro events to topic demo-orders-avro")
        .contains("schema id 1")
        .containsPattern(
            "Done in \\d+ batches: 3,000 records read = %,d rows in the table \\+ %,d quarantined"
                .formatted(expected.size(), sample.malformed()))
        .contains("order_id | customer_id | event_time | amount_cents | amount")
        .contains("Quarantine table " + output.resolve("tables/orders-avro-quarantine"));

    List<String> landed = new ArrayList<>();
    try (ObjectStore store =
        ObjectStores.open(output.resolve("tables/orders-avro").toString(), null)) {
      for (Object[] r : TableContents.rows(store)) {
        assertThat(r[4]).isEqualTo(((Long) r[3]) / 100.0);
        landed.add(r[0] + "|" + r[1] + "|" + r[2] + "|" + r[3]);
      }
    }
    assertThat(landed).containsExactlyInAnyOrderElementsOf(expected);
    try (ObjectStore store =
        ObjectStores.open(output.resolve("tables/orders-avro-quarantine").toString(), null)) {
      List<String> reasons = TableContents.rows(store).stream().map(q -> (String) q[6]).toList();
      assertThat(reasons).hasSize(sample.malformed());
      assertThat(reasons)
          .allMatch(
              r ->
                  r.contains("bad magic byte 0x7b")
                      || r.contains(
                          "schema id 9999 is not in the schema registry at http://127.0.0.1:")
                      || r.contains("the bytes do not decode with writer schema id 1"));
      assertThat(reasons)
          .anyMatch(r -> r.contains("bad magic byte"))
          .anyMatch(r -> r.contains("9999"))
          .anyMatch(r -> r.contains("do not decode"));
    }
  }

  @Test
  void anUnknownDemoIsAUsageErrorNamingTheVariants() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"demo", "protobuf", "--dir", dir.resolve("x").toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains(
            "unknown demo 'protobuf'; the variants are:"
                + " tributary demo, tributary demo avro, tributary demo medallion");
  }

  /** A well-formed event as the table row it becomes, or null for a malformed one. */
  private static String row(byte[] json) {
    JsonNode e;
    try {
      e = JSON.readTree(json);
    } catch (IOException malformed) {
      return null;
    }
    if (!e.get("amount_cents").isIntegralNumber()) {
      return null;
    }
    try {
      Instant t = Instant.parse(e.get("event_time").asText());
      return e.get("order_id").asText()
          + "|"
          + e.get("customer_id").asText()
          + "|"
          + t
          + "|"
          + e.get("amount_cents").asLong();
    } catch (DateTimeParseException malformed) {
      return null;
    }
  }
}
