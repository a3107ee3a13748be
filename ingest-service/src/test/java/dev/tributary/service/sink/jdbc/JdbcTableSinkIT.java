package dev.tributary.service.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.sink.SinkRefusedException;
import dev.tributary.service.testing.PostgresTestServer;
import dev.tributary.storage.retry.RetryPolicy;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JDBC sink against a real PostgreSQL ({@link PostgresTestServer}): rows and the progress row
 * in one transaction, a replayed batch skipped, upserts, the type mapping both ways, and the
 * refusals with their messages.
 */
class JdbcTableSinkIT {
  static final StructType EVENTS =
      new StructType(
          List.of(
              StructField.nullable("id", PrimitiveType.LONG),
              StructField.nullable("name", PrimitiveType.STRING),
              StructField.nullable("amount", new DecimalType(10, 2)),
              StructField.nullable("n", PrimitiveType.INTEGER),
              StructField.nullable("score", PrimitiveType.DOUBLE),
              StructField.nullable("flag", PrimitiveType.BOOLEAN),
              StructField.nullable("at", PrimitiveType.TIMESTAMP),
              StructField.nullable("day", PrimitiveType.DATE),
              StructField.nullable("raw", PrimitiveType.BINARY),
              StructField.nullable(
                  "nested",
                  new StructType(
                      List.of(
                          StructField.nullable("a", PrimitiveType.LONG),
                          StructField.nullable("b", PrimitiveType.STRING)))),
              StructField.nullable("_kafka_topic", PrimitiveType.STRING),
              StructField.nullable("_kafka_partition", PrimitiveType.INTEGER),
              StructField.nullable("_kafka_offset", PrimitiveType.LONG)));

  static final TableTxns TXNS = new TableTxns("orders-pg", Optional.of("c1"));
  static final RetryPolicy FAST =
      RetryPolicy.named("jdbc.connect")
          .withMaxAttempts(2)
          .withBackoff(Duration.ofMillis(10), Duration.ofMillis(10));

  PostgresTestServer pg = PostgresTestServer.shared();
  String url;

  @BeforeEach
  void database() {
    url = pg.createDatabase();
  }

  JdbcSinkSpec spec(String table, JdbcSinkSpec.Write write, List<String> key, boolean create) {
    return new JdbcSinkSpec(
        url,
        table,
        Optional.of(PostgresTestServer.USER),
        Optional.of(PostgresTestServer.PASSWORD),
        write,
        key,
        create,
        Map.of());
  }

  JdbcTableSink sink(JdbcSinkSpec spec, StructType schema) throws IOException {
    return new JdbcTableSink("orders-pg", spec, schema, new PostgresDialect(), FAST);
  }

  static BatchTag tag(long batch, long end) {
    return TXNS.tag(batch, Map.of(new SourcePartition("orders", 1), new OffsetRange(0, end)));
  }

  static Object[] event(long id, long offset) {
    return new Object[] {
      id,
      "name\t" + id + "\\ \"q\" ü\n",
      new BigDecimal("12.34"),
      7,
      id % 2 == 0 ? Double.NaN : 1.5e10,
      id % 2 == 0,
      Instant.parse("2026-11-01T12:00:00.123456Z"),
      LocalDate.parse("2026-11-01"),
      new byte[] {0, 1, (byte) 0xff},
      new Object[] {id * 10, "x"},
      "orders",
      1,
      offset
    };
  }

  static long write(TableSink sink, BatchTag tag, Object[]... rows) throws IOException {
    try (TableSink.BatchWriter w = sink.begin(tag)) {
      for (Object[] row : rows) {
        w.write(row);
      }
      return w.commit(Map.of());
    }
  }

  List<List<Object>> query(String sql) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (Connection c = PostgresTestServer.connect(url);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      int n = r.getMetaData().getColumnCount();
      while (r.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(r.getObject(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  void execute(String sql) throws Exception {
    try (Connection c = PostgresTestServer.connect(url);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Test
  void appendsEveryTypeAndSkipsABatchTheTableHolds() throws Exception {
    try (JdbcTableSink sink =
        sink(spec("events", JdbcSinkSpec.Write.APPEND, List.of(), true), EVENTS)) {
      assertThat(write(sink, tag(0, 2), event(1, 0), event(2, 1))).isZero();
      // a replay of batch 0 (a crash after the commit, before the checkpoint's commits entry)
      try (TableSink.BatchWriter replay = sink.begin(tag(0, 2))) {
        assertThat(replay.alreadyCommitted()).isTrue();
      }
      assertThat(write(sink, tag(1, 3), event(3, 2))).isEqualTo(1);
    }
    assertThat(
            query(
                "SELECT id, name, amount, n, score::text, flag, at, day, raw, nested::text,"
                    + " _kafka_offset FROM events ORDER BY id"))
        .hasSize(3);
    List<Object> first =
        query(
                "SELECT name, amount::text, score::text, flag, to_char(at AT TIME ZONE 'UTC',"
                    + " 'YYYY-MM-DD HH24:MI:SS.US'), day::text, encode(raw, 'hex'), nested->>'a',"
                    + " nested->>'b' FROM events WHERE id = 2")
            .get(0);
    assertThat(first)
        .containsExactly(
            "name\t2\\ \"q\" ü\n",
            "12.34",
            "NaN",
            true,
            "2026-11-01 12:00:00.123456",
            "2026-11-01",
            "0001ff",
            "20",
            "x");
    assertThat(query("SELECT score FROM events WHERE id = 1").get(0).get(0)).isEqualTo(1.5e10);
    assertThat(
            query(
                "SELECT pipeline, checkpoint_id, target_table, batch_id, source_positions FROM"
                    + " tributary_progress"))
        .containsExactly(List.of("orders-pg", "c1", "events", 1L, "{\"orders-pg:orders:1\":3}"));
    // the type mapping of create-table
    assertThat(
            query(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name ="
                    + " 'events' ORDER BY ordinal_position"))
        .extracting(r -> r.get(0) + " " + r.get(1))
        .containsExactly(
            "id bigint",
            "name text",
            "amount numeric",
            "n integer",
            "score double precision",
            "flag boolean",
            "at timestamp with time zone",
            "day date",
            "raw bytea",
            "nested jsonb",
            "_kafka_topic text",
            "_kafka_partition integer",
            "_kafka_offset bigint");
  }

  @Test
  void upsertKeepsTheLastRowOfEachKey() throws Exception {
    StructType schema =
        new StructType(
            List.of(
                StructField.nullable("customer", PrimitiveType.STRING),
                StructField.nullable("total", PrimitiveType.LONG)));
    try (JdbcTableSink sink =
        sink(spec("totals", JdbcSinkSpec.Write.UPSERT, List.of("customer"), true), schema)) {
      write(
          sink, tag(0, 3), new Object[] {"a", 1L}, new Object[] {"b", 2L}, new Object[] {"a", 3L});
      write(sink, tag(1, 5), new Object[] {"b", 20L}, new Object[] {"c", 5L});
      assertThat(write(sink, tag(1, 5), new Object[] {"b", 99L})).isEqualTo(-1);
    }
    assertThat(query("SELECT customer, total FROM totals ORDER BY customer"))
        .containsExactly(List.of("a", 3L), List.of("b", 20L), List.of("c", 5L));
  }

  @Test
  void twoWritersOfOneBatchLeaveOneCopy() throws Exception {
    JdbcSinkSpec spec = spec("events", JdbcSinkSpec.Write.APPEND, List.of(), true);
    try (JdbcTableSink owner = sink(spec, EVENTS);
        JdbcTableSink zombie = sink(spec, EVENTS)) {
      TableSink.BatchWriter z = zombie.begin(tag(0, 2));
      TableSink.BatchWriter o = owner.begin(tag(0, 2));
      z.write(event(1, 0));
      o.write(event(1, 0));
      z.write(event(2, 1));
      o.write(event(2, 1));
      assertThat(o.commit(Map.of())).isZero();
      assertThat(z.commit(Map.of())).as("the zombie's commit records nothing").isEqualTo(-1);
      z.close();
      o.close();
    }
    assertThat(query("SELECT count(*) FROM events").get(0).get(0)).isEqualTo(2L);
  }

  @Test
  void aMissingTableIsRefusedWithTheStatementThatCreatesIt() {
    assertThatThrownBy(
            () -> sink(spec("orders", JdbcSinkSpec.Write.APPEND, List.of(), false), EVENTS))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("Pipeline orders-pg: the table orders does not exist in " + url)
        .hasMessageContaining("CREATE TABLE \"orders\" (\"id\" bigint, \"name\" text")
        .hasMessageContaining("sink.jdbc.create-table: true");
  }

  @Test
  void aColumnTheTableCannotTakeIsRefusedNamingIt() throws Exception {
    execute(
        "CREATE TABLE narrow (id integer, name varchar(20), amount numeric(5,1), extra text NOT"
            + " NULL)");
    StructType schema =
        new StructType(
            List.of(
                StructField.nullable("id", PrimitiveType.LONG),
                StructField.nullable("name", PrimitiveType.STRING),
                StructField.nullable("amount", new DecimalType(10, 2)),
                StructField.nullable("missing", PrimitiveType.DATE)));
    assertThatThrownBy(
            () -> sink(spec("narrow", JdbcSinkSpec.Write.APPEND, List.of(), false), schema))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("the table narrow in " + url + " cannot take the pipeline's rows")
        .hasMessageContaining(
            "its column \"id\" is integer, which cannot take the pipeline's long values")
        .hasMessageContaining("numeric(5,1) cannot hold every decimal(10,2)")
        .hasMessageContaining(
            "it has no column \"missing\" (add it: ALTER TABLE \"narrow\" ADD COLUMN \"missing\" date)")
        .hasMessageContaining("its column \"extra\" is NOT NULL without a default");
  }

  @Test
  void anUpsertWithoutAUniqueIndexOnTheKeyIsRefused() throws Exception {
    execute("CREATE TABLE totals (customer text, total bigint)");
    StructType schema =
        new StructType(
            List.of(
                StructField.nullable("customer", PrimitiveType.STRING),
                StructField.nullable("total", PrimitiveType.LONG)));
    assertThatThrownBy(
            () ->
                sink(spec("totals", JdbcSinkSpec.Write.UPSERT, List.of("customer"), false), schema))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining(
            "an upsert by [customer] needs a unique index on exactly those columns (CREATE UNIQUE"
                + " INDEX ON \"totals\" (\"customer\"))");
  }

  @Test
  void aRowBreakingAConstraintIsNamedByItsSourceOffsetAndNothingIsWritten() throws Exception {
    try (JdbcTableSink sink =
        sink(spec("events", JdbcSinkSpec.Write.APPEND, List.of(), true), EVENTS)) {
      execute("ALTER TABLE events ADD CONSTRAINT positive CHECK (id > 0)");
      assertThatThrownBy(() -> write(sink, tag(0, 43), event(1, 40), event(-5, 42), event(2, 43)))
          .isInstanceOf(SinkRefusedException.class)
          .hasMessageContaining(
              "Pipeline orders-pg: the table events in "
                  + url
                  + " refused the row of topic orders partition 1 offset 42 in batch 0")
          .hasMessageContaining("violates check constraint \"positive\"")
          .hasMessageContaining("Nothing of the batch was written");
      assertThat(query("SELECT count(*) FROM events").get(0).get(0)).isEqualTo(0L);
      // the sink goes on with the next batch on a fresh transaction
      write(sink, tag(0, 43), event(1, 40));
    }
    assertThat(query("SELECT count(*) FROM events").get(0).get(0)).isEqualTo(1L);
  }

  @Test
  void anUnreachableDatabaseIsRetriedThenNamed() {
    String nowhere = "jdbc:postgresql://127.0.0.1:1/shop";
    JdbcSinkSpec spec =
        new JdbcSinkSpec(
            nowhere,
            "events",
            Optional.of("u"),
            Optional.of("secret-password"),
            JdbcSinkSpec.Write.APPEND,
            List.of(),
            true,
            Map.of());
    assertThatThrownBy(() -> sink(spec, EVENTS))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(
            "Pipeline orders-pg: cannot open the table events at " + nowhere + " after retrying")
        .hasMessageContaining("Check that the database runs and is reachable")
        .hasMessageNotContaining("secret-password");
  }

  @Test
  void aWrongPasswordIsRefusedWithoutShowingIt() {
    JdbcSinkSpec spec =
        new JdbcSinkSpec(
            url,
            "events",
            Optional.of(PostgresTestServer.USER),
            Optional.of("not-the-password"),
            JdbcSinkSpec.Write.APPEND,
            List.of(),
            true,
            Map.of());
    assertThatThrownBy(() -> sink(spec, EVENTS))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("password authentication failed for user \"tributary\"")
        .hasMessageContaining("Check sink.jdbc.user and sink.jdbc.password")
        .hasMessageNotContaining("not-the-password");
  }

  @Test
  void aLoginWithoutCreateWritesIntoTablesMadeBeforehand() throws Exception {
    // the owner makes the table and the progress table once (a DBA, or a first run)
    execute("CREATE SCHEMA shop");
    try (JdbcTableSink first =
        sink(spec("shop.events", JdbcSinkSpec.Write.APPEND, List.of(), true), EVENTS)) {
      assertThat(first.location()).contains("shop.events");
    }
    String writer = "writer_" + Long.toHexString(System.nanoTime());
    String database = url.substring(url.lastIndexOf('/') + 1);
    try (Connection c = pg.superuser(database);
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + writer + " LOGIN PASSWORD 'writer-pw-4411'");
      s.execute("GRANT USAGE ON SCHEMA shop TO " + writer);
      s.execute("GRANT SELECT, INSERT ON shop.events TO " + writer);
      s.execute("GRANT SELECT, INSERT, UPDATE ON shop.tributary_progress TO " + writer);
    }
    JdbcSinkSpec limited =
        new JdbcSinkSpec(
            url,
            "shop.events",
            Optional.of(writer),
            Optional.of("writer-pw-4411"),
            JdbcSinkSpec.Write.APPEND,
            List.of(),
            false,
            Map.of());
    try (JdbcTableSink sink = sink(limited, EVENTS)) {
      assertThat(write(sink, tag(0, 2), event(1, 0), event(2, 1))).isZero();
    }
    assertThat(query("SELECT count(*) FROM shop.events").get(0).get(0)).isEqualTo(2L);
    assertThat(query("SELECT batch_id FROM shop.tributary_progress").get(0).get(0)).isEqualTo(0L);
  }

  @Test
  void factsAndHistoryTellTheTableAndTheOtherCheckpoints() throws Exception {
    JdbcSinkSpec spec = spec("events", JdbcSinkSpec.Write.APPEND, List.of(), true);
    try (JdbcTableSink sink = sink(spec, EVENTS)) {
      write(sink, tag(0, 2), event(1, 0));
      write(
          sink,
          new TableTxns("orders-pg", Optional.of("c2"))
              .tag(4, Map.of(new SourcePartition("orders", 1), new OffsetRange(2, 9))),
          event(2, 1));
      TableSink.TableFacts facts = sink.facts(TXNS.batchAppId(), -1).orElseThrow();
      assertThat(facts.exists()).isTrue();
      assertThat(facts.heldBatch()).isZero();
      TableTxns.TableHistory history = sink.history(TXNS);
      assertThat(history.otherCheckpoints())
          .extracting(t -> t.appId() + "=" + t.version())
          .containsExactly("orders-pg@c2=4");
      assertThat(history.positions())
          .containsExactly(Map.entry(new SourcePartition("orders", 1), 9L));
      execute("DROP TABLE events");
      execute("CREATE TABLE events (LIKE tributary_progress)");
      assertThat(sink.facts(TXNS.batchAppId(), -1).orElseThrow().tableId())
          .as("a re-created table is another table")
          .isNotEqualTo(facts.tableId());
      assertThat(sink.waysOnAfterLoss(3))
          .as("the ways on a lost database table offers, without Delta's")
          .contains("its progress table (")
          .contains("tributary_progress")
          .contains("backup taken at batch 3")
          .doesNotContain("RESTORE")
          .doesNotContain("starting-offsets");
    }
  }
}
