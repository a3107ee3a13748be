package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.join.DimensionTables;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compact} and {@code vacuum} of a routed pipeline: one pass per table under the folder of
 * the routes, each named in the output; with no table yet, they say so.
 */
class RouteMaintenanceTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    out.reset();
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private Path pipeline() throws Exception {
    Path file = dir.resolve("routed.yaml");
    Files.writeString(
        file,
        """
        pipeline: routed
        source: { kafka: { bootstrap-servers: localhost:9092, topic-pattern: "shop-.*" } }
        format: { json: { schema: { id: string } } }
        sink:
          delta:
            path: %s/silver/{route}
            route: _kafka_topic
        checkpoint: %s/checkpoint
        maintenance:
          compaction: { schedule: "0 0 * * * *", min-files: 2 }
        """
            .formatted(dir, dir));
    return file;
  }

  private void smallFiles(String route) throws Exception {
    DimensionTables table =
        DimensionTables.create(
            dir.resolve("silver").resolve(route),
            List.<Object[]>of(DimensionTables.customer("c1", "s", "EU", 1)));
    table.append(List.<Object[]>of(DimensionTables.customer("c2", "s", "EU", 1)));
    table.append(List.<Object[]>of(DimensionTables.customer("c3", "s", "US", 2)));
  }

  private long files(String route) throws Exception {
    try (ObjectStore store =
        ObjectStores.open(dir.resolve("silver").resolve(route).toString(), null)) {
      return DeltaTable.open(store, TableOptions.defaults()).snapshot().files().size();
    }
  }

  @Test
  void compactRunsOnePassOverEachRoutedTable() throws Exception {
    Path file = pipeline();
    assertThat(run("compact", "--pipeline", file.toString())).isZero();
    assertThat(out())
        .isEqualTo("routed: no table under " + dir + "/silver yet" + System.lineSeparator());

    smallFiles("shop-customers");
    smallFiles("shop-orders");
    assertThat(run("compact", "--pipeline", file.toString())).as(err.toString()).isZero();
    assertThat(out())
        .matches(
            "compact routed "
                + Pattern.quote(dir + "/silver/shop-customers")
                + ": compacted 3 files .*\\R"
                + "compact routed "
                + Pattern.quote(dir + "/silver/shop-orders")
                + ": compacted 3 files .*\\R");
    assertThat(files("shop-customers")).isEqualTo(1);
    assertThat(files("shop-orders")).isEqualTo(1);

    assertThat(run("vacuum", "--pipeline", file.toString(), "--dry-run")).isZero();
    assertThat(out())
        .contains("vacuum routed " + dir + "/silver/shop-customers: ")
        .contains("vacuum routed " + dir + "/silver/shop-orders: ");
  }
}
