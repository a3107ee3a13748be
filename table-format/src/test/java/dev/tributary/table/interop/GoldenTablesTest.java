package dev.tributary.table.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The outside check of issue 23: Delta Lake's own golden tables (delta-io/delta, {@code
 * connectors/golden-tables/src/main/resources/golden/}), tables nobody here wrote, are not copied
 * into this repository. Point {@code TRIBUTARY_GOLDEN_TABLES} (or the system property {@code
 * tributary.golden.tables}) at a checkout of that folder and this test reads every table in it with
 * our reader and with Delta Kernel: it prints how many we read exactly, refuse (and why) or cannot
 * compare (Kernel itself fails or returns a type our reader lacks), and fails if any table is read
 * with a different row set, which would be a wrong row. Skipped when the folder is absent.
 */
class GoldenTablesTest {
  @Test
  void everyGoldenTableIsReadExactlyOrRefusedNeverWrong() throws IOException {
    String location =
        System.getProperty(
            "tributary.golden.tables", System.getenv().getOrDefault("TRIBUTARY_GOLDEN_TABLES", ""));
    Assumptions.assumeTrue(
        !location.isBlank() && Files.isDirectory(Path.of(location)),
        "no golden tables: set TRIBUTARY_GOLDEN_TABLES to delta-io/delta's"
            + " connectors/golden-tables/src/main/resources/golden/");
    List<Path> tables;
    try (Stream<Path> walk = Files.walk(Path.of(location))) {
      tables =
          walk.filter(p -> p.getFileName().toString().equals("_delta_log"))
              .map(Path::getParent)
              .sorted()
              .toList();
    }
    Map<String, String> outcome = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    for (Path table : tables) {
      String name = Path.of(location).relativize(table).toString();
      List<List<Object>> kernel;
      try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
        try {
          kernel = normalize(new KernelReader(store).rows());
        } catch (RuntimeException | IOException | LinkageError e) {
          outcome.put(name, "not compared (Kernel: " + firstLine(e) + ")");
          continue;
        }
        List<List<Object>> ours;
        try {
          ours = normalize(read(store));
        } catch (RuntimeException | IOException e) {
          outcome.put(name, "refused: " + firstLine(e));
          continue;
        }
        if (ours.equals(kernel)) {
          outcome.put(name, "exact (" + ours.size() + " rows)");
        } else {
          outcome.put(name, "WRONG: " + ours.size() + " rows vs Kernel's " + kernel.size());
          wrong.add(name);
        }
      }
    }
    long exact = outcome.values().stream().filter(v -> v.startsWith("exact")).count();
    System.out.printf("golden tables: %d of %d read exactly%n", exact, tables.size());
    outcome.forEach((k, v) -> System.out.println("  " + k + ": " + v));
    assertThat(wrong).as("tables read with other rows than Delta Kernel's").isEmpty();
  }

  private static List<Object[]> read(ObjectStore store) throws IOException {
    Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
    List<Object[]> rows = new ArrayList<>();
    for (DataFile f : snapshot.files()) {
      try (CloseableIterator<Object[]> it =
          DataFiles.read(store, f, snapshot.schema(), snapshot.columnMapping())) {
        it.forEachRemaining(rows::add);
      }
    }
    return rows;
  }

  /** Rows as comparable lists (binary as its text, structs, arrays and maps deeply), sorted. */
  private static List<List<Object>> normalize(List<Object[]> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] row : rows) {
      out.add(Arrays.stream(row).map(GoldenTablesTest::comparable).toList());
    }
    out.sort(Comparator.comparing(Object::toString));
    return out;
  }

  private static Object comparable(Object value) {
    if (value instanceof byte[] b) {
      return Arrays.toString(b);
    }
    if (value instanceof Object[] nested) {
      return Arrays.stream(nested).map(GoldenTablesTest::comparable).toList();
    }
    if (value instanceof List<?> list) {
      return list.stream().map(GoldenTablesTest::comparable).toList();
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(comparable(k), comparable(v)));
      return out;
    }
    return value == null ? "null" : value;
  }

  private static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage());
    return e.getClass().getSimpleName() + ": " + m.lines().findFirst().orElse("");
  }
}
