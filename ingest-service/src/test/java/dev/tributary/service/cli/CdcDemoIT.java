package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.demo.ChangeEvents;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.interop.KernelReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tributary demo cdc` end to end: its own broker, both pipelines; the current-state table and the
 * history table, read by Delta Kernel (not by the demo's own reader), equal what the generator's
 * source table went through, and the demo says so.
 */
class CdcDemoIT {
  private static final int EVENTS = 1_500;
  @TempDir Path dir;

  @Test
  void landsTheChangeStreamAsCurrentStateAndHistory() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path output = dir.resolve("demo");
    int code =
        Main.run(
            new String[] {
              "demo", "cdc", "--events", Integer.toString(EVENTS), "--dir", output.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("stderr: %s%nstdout: %s", err, printed).isZero();

    ChangeEvents.Stream stream =
        ChangeEvents.generate(EVENTS, Instant.parse("2026-11-01T08:00:00Z"), 11);
    assertThat(stream.deletes()).isPositive();
    assertThat(stream.replayed()).isPositive();
    assertThat(printed)
        .contains(stream.describe())
        .contains("equal to the source table at the end: yes")
        .contains("every version the source table went through: yes")
        .contains("(deleted):");

    TreeSet<String> current = CdcDemo.showCurrent(kernelRows(output.resolve("tables/customers")));
    assertThat(current)
        .hasSize(stream.database().size())
        .isEqualTo(CdcDemo.expectedCurrent(stream));
    TreeSet<String> history =
        CdcDemo.showHistory(kernelRows(output.resolve("tables/customers-history")));
    assertThat(history).hasSize(stream.versions()).isEqualTo(CdcDemo.expectedHistory(stream));
    assertThat(DemoTables.rows(output.resolve("tables/customers-quarantine").toString())).isZero();
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
