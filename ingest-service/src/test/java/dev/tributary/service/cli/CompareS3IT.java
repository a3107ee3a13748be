package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.testing.S3TestServer;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code tributary compare} over {@code s3://} tables on a real S3 API server, reached with the
 * settings the environment gives ({@code AWS_ENDPOINT_URL}, {@code AWS_REGION}, the access keys).
 */
class CompareS3IT {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("name", PrimitiveType.STRING));

  @Test
  void tablesOnS3AreComparedWithTheEnvironmentsSettings() throws Exception {
    S3TestServer s3 = S3TestServer.shared();
    String bucket = s3.createBucket();
    String a = "s3://" + bucket + "/lake/a";
    String b = "s3://" + bucket + "/lake/b";
    write(s3, a, 0, 20);
    write(s3, b, 0, 19);
    write(s3, b, 19, 20);
    Map<String, String> env =
        Map.of(
            "AWS_ENDPOINT_URL",
            s3.endpoint().toString(),
            "AWS_REGION",
            "us-east-1",
            "AWS_ACCESS_KEY_ID",
            S3TestServer.ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY",
            S3TestServer.SECRET_KEY);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int equal = compare(env, out, err, a, b + "@2");
    int older = compare(env, out, err, a, b + "@1", "--key", "id");
    int missing = compare(env, out, err, a, "s3://" + bucket + "/lake/none");

    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(equal).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(older).isEqualTo(1);
    assertThat(printed)
        .contains("compare A " + a + "@1 with B " + b + "@2")
        .contains("rows: A 20, B 19")
        .contains("only in A: 1 row\n  (19, 'n19')")
        .contains("by key (id): 1 key only in A, 0 keys only in B, 0 keys changed");
    assertThat(missing).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("no Delta table at s3://" + bucket + "/lake/none");
  }

  private static int compare(
      Map<String, String> env, ByteArrayOutputStream out, ByteArrayOutputStream err, String... t)
      throws Exception {
    String[] args = new String[t.length + 1];
    args[0] = "compare";
    System.arraycopy(t, 0, args, 1, t.length);
    return CompareCommand.run(
        CliArguments.parse(args, Set.of(), Set.of("key", "where")),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        env);
  }

  private static void write(S3TestServer s3, String location, long from, long to) throws Exception {
    try (ObjectStore store = ObjectStores.open(location, s3.settings())) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      table.create(SCHEMA, List.of(), Map.of());
      try (AppendTransaction tx = table.newAppend(new TransactionId("it", from))) {
        for (long id = from; id < to; id++) {
          tx.write(new Object[] {id, "n" + id});
        }
        tx.commit(Map.of());
      }
    }
  }
}
