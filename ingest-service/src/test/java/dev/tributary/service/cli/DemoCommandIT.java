package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.demo.SampleEvents;
import dev.tributary.service.engine.TableContents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tributary demo` end to end: its own embedded broker, both demo pipelines, the printed summary.
 * The summary is an equation whose every term is checked against the tables and the generator.
 */
class DemoCommandIT {
  // Three batches of at most 5,000: a row is judged late by the watermark of the batch before the
  // previous one (docs/PIPELINE_REFERENCE.md, watermark), so only the third has late events.
  private static final int EVENTS = 11_000;
  @TempDir Path dir;

  @Test
  void runsBothDemoPipelinesAndReportsWhatHappened() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ByteArrayOutputStream stray = new ByteArrayOutputStream();
    Path output = dir.resolve("demo");
    PrintStream stdout = System.out;
    int code;
    try {
      // What the demo's libraries would print around it (the embedded broker's formatter did).
      System.setOut(new PrintStream(stray, true, StandardCharsets.UTF_8));
      code =
          Main.run(
              new String[] {
                "demo", "--events", Integer.toString(EVENTS), "--dir", output.toString()
              },
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
    } finally {
      System.setOut(stdout);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(stray.toString(StandardCharsets.UTF_8)).doesNotContain("Formatting");
    assertThat(printed).contains("field 'event_time'").contains("value: {");
    assertThat(printed).contains("window_start | window_end | customer_id | orders | amount_cents");

    // 2. The generated records by kind, each once: they add up to the number produced.
    SampleEvents.Batch sample =
        SampleEvents.generate(EVENTS, Instant.parse("2026-11-01T08:00:00Z"), 7);
    long[] produced =
        numbers(
            printed,
            "Produced (\\S+) events to topic demo-orders \\(3 partitions\\): (\\S+) orders on time,"
                + " (\\S+) orders 2 hours late, (\\S+) exact duplicates, (\\S+) malformed");
    assertThat(produced)
        .containsExactly(
            EVENTS, sample.onTime(), sample.late(), sample.duplicates(), sample.malformed());
    assertThat(produced[1] + produced[2] + produced[3] + produced[4]).isEqualTo(EVENTS);

    // 4. orders-demo: read = rows in the table + quarantined + filtered, as the tables hold them.
    long[] bronze =
        numbers(
            printed,
            "4\\. Done in \\d+ batches: (\\S+) records read = (\\S+) rows in the table"
                + " \\+ (\\S+) quarantined \\+ (\\S+) filtered out\\.");
    assertThat(bronze[0]).isEqualTo(EVENTS);
    assertThat(bronze[1] + bronze[2] + bronze[3]).isEqualTo(bronze[0]);
    assertThat(bronze[1])
        .isEqualTo(rows(output.resolve("tables/orders")))
        .isEqualTo(sample.valid() + sample.duplicates());
    assertThat(bronze[2])
        .isEqualTo(rows(output.resolve("tables/orders-quarantine")))
        .isEqualTo(sample.malformed());
    assertThat(printed).doesNotContain("do not add up");

    // 6. orders-hourly-demo: read = aggregated + duplicates + late + quarantined + filtered.
    long[] hourly =
        numbers(
            printed,
            "6\\. Done in \\d+ batches: (\\S+) records read = (\\S+) aggregated \\+ (\\S+) duplicates"
                + " dropped \\+ (\\S+) late \\(in \\S+\\) \\+ (\\S+) quarantined \\+ (\\S+) filtered"
                + " out\\.");
    assertThat(hourly[0]).isEqualTo(EVENTS);
    assertThat(hourly[1] + hourly[2] + hourly[3] + hourly[4] + hourly[5]).isEqualTo(hourly[0]);
    assertThat(hourly[3]).isPositive().isEqualTo(rows(output.resolve("tables/orders-hourly-late")));
    assertThat(hourly[4]).isEqualTo(sample.malformed());
    // Every generated duplicate is dropped as one, or routed late with its original.
    assertThat(hourly[2]).isPositive().isLessThanOrEqualTo(sample.duplicates());
    assertThat(hourly[1] + hourly[2] + hourly[3]).isEqualTo(sample.valid() + sample.duplicates());
    long[] windows =
        numbers(
            printed,
            "The (\\S+) aggregated orders: (\\S+) counted in the (\\S+) window rows written, (\\S+)"
                + " in windows still open\\.");
    assertThat(windows[0]).isEqualTo(hourly[1]);
    assertThat(windows[1])
        .isPositive()
        .isEqualTo(sumOfOrders(output.resolve("tables/orders-hourly")));
    assertThat(windows[2]).isEqualTo(rows(output.resolve("tables/orders-hourly")));
    assertThat(windows[3]).isPositive().isEqualTo(windows[0] - windows[1]);

    // A second run empties the previous demo's folder; a foreign non-empty folder is refused.
    Path foreign = Files.createDirectories(dir.resolve("mine"));
    Files.writeString(foreign.resolve("precious.txt"), "keep me");
    int refused =
        Main.run(
            new String[] {"demo", "--dir", foreign.toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(refused).isEqualTo(2);
    assertThat(foreign.resolve("precious.txt")).hasContent("keep me");
  }

  /** The numbers a line of the output holds, in the groups of {@code regex} ("1,234" = 1234). */
  private static long[] numbers(String printed, String regex) {
    Matcher m = Pattern.compile(regex).matcher(printed);
    assertThat(m.find()).as("a line like /%s/ in:%n%s", regex, printed).isTrue();
    long[] values = new long[m.groupCount()];
    for (int i = 0; i < values.length; i++) {
      values[i] = Long.parseLong(m.group(i + 1).replace(",", ""));
    }
    return values;
  }

  private static long rows(Path table) throws IOException {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      return TableContents.rows(store).size();
    }
  }

  private static long sumOfOrders(Path table) throws IOException {
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      List<Object[]> rows = TableContents.rows(store);
      return rows.stream().mapToLong(r -> (Long) r[3]).sum();
    }
  }
}
