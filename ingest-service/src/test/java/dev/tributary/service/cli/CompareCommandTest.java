package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.MergeSpec;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tributary compare} through {@link Main#run}, over tables our writer wrote: exit codes 0
 * (equal), 1 (different), 2 (cannot compare as asked), and what it prints.
 */
class CompareCommandTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("name", PrimitiveType.STRING),
          StructField.nullable("region", PrimitiveType.STRING));

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @Test
  void theSameRowsInOtherFilesAndAnotherColumnOrderAndPartitioningAreEqual() throws Exception {
    String a = table("a", SCHEMA, List.of(), List.of(rows(0, 50), rows(50, 100)));
    StructType reordered =
        StructType.of(
            StructField.nullable("region", PrimitiveType.STRING),
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("name", PrimitiveType.STRING));
    String b =
        table(
            "b",
            reordered,
            List.of("region"),
            List.of(rows(0, 100).stream().map(r -> new Object[] {r[2], r[0], r[1]}).toList()));

    assertThat(run("compare", a, b)).as(err()).isZero();
    assertThat(out())
        .contains("compare A " + a + "@2 with B " + b + "@1")
        .contains("columns: (id, name, region)")
        .contains("rows: A 100, B 100")
        .contains("only in A: 0 rows")
        .contains("only in B: 0 rows")
        .contains("result: equal");
  }

  @Test
  void differentTablesExitOneWithCountsAndSamples() throws Exception {
    List<Object[]> twice = new java.util.ArrayList<>(rows(0, 10));
    twice.add(new Object[] {3L, "n3", "US"});
    String a = table("a", SCHEMA, List.of(), List.of(twice));
    String b = table("b", SCHEMA, List.of(), List.of(rows(1, 12)));

    assertThat(run("compare", a, b)).as(err()).isEqualTo(1);
    assertThat(out())
        .contains("rows: A 11, B 11")
        // id 0, and the second copy of id 3
        .contains("only in A: 2 rows\n  (0, 'n0', 'US')\n  (3, 'n3', 'US')\n")
        .contains("only in B: 2 rows\n  (10, 'n10', 'EU')\n  (11, 'n11', null)\n")
        .contains("result: different");
  }

  @Test
  void withAKeyChangedRowsAreShownSideBySide() throws Exception {
    String a = table("a", SCHEMA, List.of(), List.of(rows(0, 5)));
    List<Object[]> changed = new java.util.ArrayList<>(rows(0, 4));
    changed.set(2, new Object[] {2L, "renamed", "EU"});
    changed.add(new Object[] {9L, "n9", "EU"});
    String b = table("b", SCHEMA, List.of(), List.of(changed));

    assertThat(run("compare", a, b, "--key", "id")).as(err()).isEqualTo(1);
    assertThat(out())
        .contains(
            "by key (id): 1 key only in A, 1 key only in B, 1 key changed (same key, different"
                + " other columns)")
        .contains("  changed (2): A (2, 'n2', null)  B (2, 'renamed', 'EU')");
  }

  @Test
  void versionsOfOneTableAndWhereNarrowBothSides() throws Exception {
    String t = table("t", SCHEMA, List.of(), List.of(rows(0, 10), rows(10, 15)));

    assertThat(run("compare", t + "@1", t + "@2")).as(err()).isEqualTo(1);
    assertThat(out()).contains("rows: A 10, B 15").contains("only in B: 5 rows");
    out.reset();
    assertThat(run("compare", t + "@1", t, "--where", "id < 10")).as(err()).isZero();
    assertThat(out()).contains("compare A " + t + "@1 with B " + t + "@2").contains("B 10");
    out.reset();
    assertThat(run("compare", t + "@0", t + "@2", "--where", "region = 'EU'")).isEqualTo(1);
    assertThat(out()).contains("rows: A 0, B 5");
  }

  @Test
  void comparisonsThatCannotBeMadeExitTwoSayingWhy() throws Exception {
    String t = table("t", SCHEMA, List.of(), List.of(rows(0, 3)));
    StructType other =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("label", PrimitiveType.STRING),
            StructField.nullable("region", PrimitiveType.STRING));
    String o = table("o", other, List.of(), List.of());
    StructType typed =
        StructType.of(
            StructField.nullable("id", PrimitiveType.INTEGER),
            StructField.nullable("name", PrimitiveType.STRING),
            StructField.nullable("region", PrimitiveType.STRING));
    String i = table("i", typed, List.of(), List.of());

    assertRefused(new String[] {"compare", t + "@x1", t}, "bad version 'x1' in '" + t + "@x1'");
    assertRefused(
        new String[] {"compare", t + "@7", t},
        "version 7 of " + t + " does not exist: the latest is 1");
    assertRefused(
        new String[] {"compare", t, dir.resolve("missing").toString()},
        "no Delta table at " + dir.resolve("missing"));
    assertRefused(
        new String[] {"compare", t, t, "--key", "id,nope"},
        "unknown key column 'nope' in --key; the tables' columns are [id, name, region]");
    assertRefused(
        new String[] {"compare", t, t, "--where", "nope > 1"}, "--where does not compile");
    assertRefused(new String[] {"compare", t, t, "--where", "id +"}, "--where does not compile");
    assertRefused(
        new String[] {"compare", t, o},
        "the tables have different columns, so no row can be equal: [name] only in "
            + t
            + "@1, [label] only in "
            + o
            + "@0");
    assertRefused(
        new String[] {"compare", t, i}, "column id is long in " + t + "@1 but integer in " + i);
    assertRefused(new String[] {"compare", t}, "compare needs two tables");
  }

  @Test
  void aTableOurUpsertMarkedWithDeletionVectorsIsReadWithoutItsDeletedRows() throws Exception {
    String t = table("t", SCHEMA, List.of(), List.of(rows(0, 10)));
    try (ObjectStore store = ObjectStores.open(t, null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      MergeSpec dv =
          new MergeSpec(List.of("id"), Optional.empty(), MergeSpec.Strategy.DELETION_VECTORS);
      try (MergeTransaction tx = table.newMerge(new TransactionId("upsert", 0), dv)) {
        tx.write(new Object[] {3L, "three", "US"});
        tx.delete(new Object[] {5L, null, null});
        tx.commit(Map.of());
      }
      assertThat(table.snapshot().files())
          .as("the merge marked the replaced and deleted rows in a deletion vector")
          .anyMatch(f -> f.deletionVector() != null);
    }
    List<Object[]> expected = new java.util.ArrayList<>(rows(0, 10));
    expected.set(3, new Object[] {3L, "three", "US"});
    expected.remove(5);
    String e = table("e", SCHEMA, List.of(), List.of(expected));

    assertThat(run("compare", t, e)).as(out() + err()).isZero();
    out.reset();
    assertThat(run("compare", t + "@1", t, "--key", "id")).isEqualTo(1);
    assertThat(out())
        .contains("rows: A 10, B 9")
        .contains("by key (id): 1 key only in A, 0 keys only in B, 1 key changed")
        .contains("  changed (3): A (3, 'n3', 'US')  B (3, 'three', 'US')");
  }

  @Test
  void helpListsCompare() {
    assertThat(run("help")).isZero();
    assertThat(out()).contains("tributary compare TABLE_A[@VERSION] TABLE_B[@VERSION]");
  }

  @Test
  void s3SettingsComeFromTheEnvironment() {
    var s3 =
        CompareCommand.s3Settings(
            Map.of("AWS_ENDPOINT_URL", "http://127.0.0.1:9000", "AWS_REGION", "eu-west-1"));
    assertThat(s3.endpoint()).hasToString("http://127.0.0.1:9000");
    assertThat(s3.pathStyle()).isTrue();
    assertThat(s3.region()).isEqualTo("eu-west-1");
    assertThat(s3.accessKey()).isNull();
    assertThat(CompareCommand.s3Settings(Map.of()).endpoint()).isNull();
    assertThat(
            CompareCommand.s3Settings(
                    Map.of("AWS_ACCESS_KEY_ID", "k", "AWS_SECRET_ACCESS_KEY", "s"))
                .accessKey())
        .isEqualTo("k");
  }

  private void assertRefused(String[] args, String message) {
    out.reset();
    err.reset();
    assertThat(run(args)).as(err()).isEqualTo(2);
    assertThat(err()).contains(message);
  }

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** Ids [from, to): name n<id>, region EU / US / null by id mod 3. */
  private static List<Object[]> rows(long from, long to) {
    List<Object[]> rows = new java.util.ArrayList<>();
    for (long id = from; id < to; id++) {
      rows.add(new Object[] {id, "n" + id, id % 3 == 0 ? "US" : id % 3 == 1 ? "EU" : null});
    }
    return rows;
  }

  /** A table made by our writer: version 0 the creation, then one append per batch. */
  private String table(
      String name, StructType schema, List<String> partitionBy, List<List<Object[]>> batches)
      throws Exception {
    Path path = dir.resolve(name);
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(schema, partitionBy, Map.of());
      for (int i = 0; i < batches.size(); i++) {
        try (AppendTransaction tx = table.newAppend(new TransactionId("test", i))) {
          for (Object[] row : batches.get(i)) {
            tx.write(row);
          }
          tx.commit(Map.of());
        }
      }
    }
    return path.toString();
  }
}
