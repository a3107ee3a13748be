package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tributary demo medallion` end to end: the three example pipelines over the demo's events, each
 * layer checked against the one below it.
 */
class MedallionDemoIT {
  @TempDir Path dir;

  /** A table's rows as column name → value maps. */
  private static List<Map<String, Object>> rows(Path table) throws IOException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (ObjectStore store = ObjectStores.open(table.toString(), null)) {
      Snapshot snapshot = DeltaTable.open(store, TableOptions.defaults()).snapshot();
      List<String> names = snapshot.schema().fieldNames();
      for (DataFile f : snapshot.files()) {
        for (Object[] row : DataFiles.readAll(store, f, snapshot.schema())) {
          Map<String, Object> named = new HashMap<>();
          for (int i = 0; i < names.size(); i++) {
            named.put(names.get(i), row[i]);
          }
          rows.add(named);
        }
      }
    }
    return rows;
  }

  private static List<Object> key(Map<String, Object> row, String... columns) {
    List<Object> key = new ArrayList<>();
    for (String c : columns) {
      key.add(row.get(c));
    }
    return key;
  }

  private static <K> void count(Map<K, Long> counts, K key, long delta) {
    counts.merge(key, delta, Long::sum);
    counts.remove(key, 0L);
  }

  /** The 10-minute window start of an event time, in the representation the table uses. */
  private static Object windowStart(Object eventTime) {
    if (eventTime instanceof Instant at) {
      long minutes = at.truncatedTo(ChronoUnit.MINUTES).getEpochSecond() / 60;
      return Instant.ofEpochSecond((minutes - Math.floorMod(minutes, 10)) * 60);
    }
    long micros = (Long) eventTime;
    return micros - Math.floorMod(micros, 600_000_000L);
  }

  @Test
  void runsBronzeSilverGoldAndEachLayerFollowsFromTheOneBelow() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path output = dir.resolve("demo");
    int code =
        Main.run(
            new String[] {"demo", "medallion", "--events", "12000", "--dir", output.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code)
        .as("stderr: %s%nstdout: %s", err.toString(StandardCharsets.UTF_8), printed)
        .isZero();
    assertThat(printed)
        .contains("Produced 12,000 events")
        .contains("Wrote the dimension table")
        .contains("bronze: running pipeline medallion-bronze")
        .contains("silver: running pipeline medallion-silver")
        .contains("gold: running pipeline medallion-gold")
        .contains("window_start | window_end | segment | orders | amount_cents");
    Path tables = output.resolve("tables");

    // Bronze: every record that parsed (duplicates included); the malformed ones are in quarantine.
    List<Map<String, Object>> bronze = rows(tables.resolve("bronze-orders"));
    assertThat(bronze).isNotEmpty();
    assertThat(bronze.size() + rows(tables.resolve("bronze-orders-quarantine")).size())
        .isEqualTo(12000);
    assertThat(printed)
        .containsPattern(
            "bronze table .*: version \\d+, \\d+ files, "
                + String.format("%,d", bronze.size())
                + " rows");

    // Silver: each valid bronze row exactly once, with its amount and its customer's segment and
    // region.
    Map<String, Object[]> customers = new HashMap<>();
    for (Object[] c : MedallionDemo.CUSTOMERS) {
      customers.put((String) c[0], c);
    }
    String[] orderColumns = {"order_id", "customer_id", "event_time", "amount_cents"};
    Map<List<Object>, Long> expected = new HashMap<>();
    for (Map<String, Object> row : bronze) {
      if (row.get("customer_id") != null && (Long) row.get("amount_cents") > 0) {
        count(expected, key(row, orderColumns), 1);
      }
    }
    List<Map<String, Object>> silver = rows(tables.resolve("silver-orders"));
    Map<List<Object>, Long> actual = new HashMap<>();
    for (Map<String, Object> row : silver) {
      count(actual, key(row, orderColumns), 1);
      Object[] customer = customers.get((String) row.get("customer_id"));
      assertThat(row.get("segment"))
          .as("segment of %s", row)
          .isEqualTo(customer == null ? null : customer[1]);
      assertThat(row.get("region"))
          .as("region of %s", row)
          .isEqualTo(customer == null ? null : customer[2]);
      assertThat(((Number) row.get("amount")).doubleValue())
          .isEqualTo((Long) row.get("amount_cents") / 100.0);
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(silver)
        .anySatisfy(r -> assertThat(r.get("segment")).isNull()); // heidi: the left join keeps her
    assertThat(silver).anySatisfy(r -> assertThat(r.get("segment")).isEqualTo("enterprise"));

    // Gold: each window it wrote equals the batch aggregation over silver's rows that were not
    // late.
    Map<List<Object>, Long> onTime = new HashMap<>();
    for (Map<String, Object> row : silver) {
      count(onTime, key(row, "order_id", "event_time"), 1);
    }
    List<Map<String, Object>> late = rows(tables.resolve("gold-orders-late"));
    for (Map<String, Object> row : late) {
      count(onTime, key(row, "order_id", "event_time"), -1);
    }
    // 12,000 events make several bronze batches, so silver has several commits, gold several
    // batches, and
    // the events generated two hours behind arrive after the watermark passed them.
    assertThat(late).isNotEmpty();
    assertThat(onTime.values()).allMatch(n -> n > 0); // every late row is a silver row
    Map<List<Object>, long[]> batch = new HashMap<>();
    for (Map<String, Object> row : silver) {
      List<Object> id = key(row, "order_id", "event_time");
      if (onTime.getOrDefault(id, 0L) == 0) {
        continue;
      }
      count(onTime, id, -1);
      long[] agg =
          batch.computeIfAbsent(
              List.of(windowStart(row.get("event_time")), String.valueOf(row.get("segment"))),
              k -> new long[2]);
      agg[0]++;
      agg[1] += (Long) row.get("amount_cents");
    }
    List<Map<String, Object>> gold = rows(tables.resolve("gold-orders-by-segment"));
    assertThat(gold).hasSizeGreaterThan(3);
    for (Map<String, Object> row : gold) {
      long[] agg = batch.get(List.of(row.get("window_start"), String.valueOf(row.get("segment"))));
      assertThat(agg).as("gold row %s", row).isNotNull();
      assertThat(((Number) row.get("orders")).longValue())
          .as("orders of %s", row)
          .isEqualTo(agg[0]);
      assertThat(((Number) row.get("amount_cents")).longValue())
          .as("amount of %s", row)
          .isEqualTo(agg[1]);
    }
    // Windows are written once each (append).
    assertThat(gold.stream().map(r -> key(r, "window_start", "segment")).distinct())
        .hasSize(gold.size());
  }

  @Test
  void validateAcceptsEachExampleFile() {
    for (String layer : List.of("bronze", "silver", "gold")) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      Path file = Path.of("..", "pipelines", "medallion", layer + ".yaml");
      int code =
          Main.run(
              new String[] {"validate", file.toString()},
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(code).as("%s: %s", file, err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("medallion-" + layer);
    }
  }

  @Test
  void anUnknownDemoVariantIsAUsageError() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"demo", "platinum", "--dir", dir.resolve("x").toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown demo 'platinum'");
  }
}
