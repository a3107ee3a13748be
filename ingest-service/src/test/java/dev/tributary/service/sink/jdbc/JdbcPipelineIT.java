package dev.tributary.service.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.sink.SinkRefusedException;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.PostgresTestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka to PostgreSQL through the command's path ({@link PipelineRun}): a stateless pipeline
 * appends every record once across runs (quarantine beside the checkpoint), an update-mode
 * aggregation upserts its changed windows, and a missing table is refused before anything is read.
 */
class JdbcPipelineIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  private final PostgresTestServer pg = PostgresTestServer.shared();
  @TempDir Path dir;

  private PipelineSpec spec(String topic, String url, String query, String sink) {
    String yaml =
        """
        pipeline: orders-pg
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 40
        format:
          json:
            schema: { order_id: long, customer: string, amount: long, at: timestamp }
        %s
        sink:
          jdbc:
            url: %s
            table: %s
            user: %s
            password: "%s"
        checkpoint: %s/checkpoint
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                query,
                url,
                sink,
                PostgresTestServer.USER,
                PostgresTestServer.PASSWORD,
                dir);
    return PipelineParser.parse(yaml, "orders-pg.yaml", Map.of());
  }

  private static void runAvailableNow(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private static List<String> orders(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(
          i % 25 == 3
              ? "{\"order_id\": broken " + i
              : "{\"order_id\":"
                  + i
                  + ",\"customer\":\"c"
                  + (i % 4)
                  + "\",\"amount\":"
                  + i
                  + ",\"at\":\"2026-11-01T10:"
                  + String.format("%02d", i % 60)
                  + ":00Z\"}");
    }
    return out;
  }

  private static List<List<Object>> query(String url, String sql) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (Connection c = PostgresTestServer.connect(url);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      while (r.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
          row.add(r.getObject(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  @Test
  void appendsEveryRecordOnceAcrossRunsWithTheMalformedOnesQuarantined() throws Exception {
    String topic = broker.createTopic("orders-pg", 2);
    String url = pg.createDatabase();
    broker.send(topic, 0, orders(0, 100));
    broker.send(topic, 1, orders(100, 150));
    PipelineSpec spec = spec(topic, url, "", "orders\n    create-table: true");
    runAvailableNow(spec);
    broker.send(topic, 1, orders(150, 200));
    runAvailableNow(spec);

    List<List<Object>> rows =
        query(
            url, "SELECT order_id, customer, amount, _kafka_offset FROM orders ORDER BY order_id");
    List<Long> expected = new ArrayList<>();
    for (long i = 0; i < 200; i++) {
      if (i % 25 != 3) {
        expected.add(i);
      }
    }
    assertThat(rows).extracting(r -> (Long) r.get(0)).containsExactlyElementsOf(expected);
    assertThat(rows.get(4)).as("id 3 was malformed").containsExactly(5L, "c1", 5L, 5L);
    assertThat(query(url, "SELECT batch_id >= 4 FROM tributary_progress").get(0).get(0))
        .isEqualTo(true);
    assertThat(spec.quarantine().path()).isEqualTo(dir.resolve("checkpoint") + "-quarantine");
  }

  @Test
  void updateModeUpsertsTheChangedWindowsOfEachBatch() throws Exception {
    String topic = broker.createTopic("orders-pg-agg", 1);
    String url = pg.createDatabase();
    broker.send(topic, 0, orders(0, 120));
    String aggregate =
        """
        watermark: { column: at, delay: 1 hour }
        aggregate:
          window: { column: at, size: 1 hour }
          group-by: [customer]
          measures: { total: sum(amount), orders: count() }
        output-mode: update
        """;
    PipelineSpec spec =
        spec(topic, url, aggregate, "hourly\n    write: upsert\n    create-table: true");
    runAvailableNow(spec);
    broker.send(topic, 0, orders(120, 160));
    runAvailableNow(spec);

    long[] totals = new long[4];
    long[] counts = new long[4];
    for (int i = 0; i < 160; i++) {
      if (i % 25 != 3) {
        totals[i % 4] += i;
        counts[i % 4]++;
      }
    }
    assertThat(query(url, "SELECT customer, total, orders FROM hourly ORDER BY customer"))
        .containsExactly(
            List.of("c0", totals[0], counts[0]),
            List.of("c1", totals[1], counts[1]),
            List.of("c2", totals[2], counts[2]),
            List.of("c3", totals[3], counts[3]));
    assertThat(
            query(
                url,
                "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE"
                    + " c.relname = 'hourly' AND i.indisprimary"))
        .containsExactly(List.of(1L));
  }

  @Test
  void aMissingTableIsRefusedBeforeAnythingIsRead() {
    String topic = broker.createTopic("orders-pg-missing", 1);
    String url = pg.createDatabase();
    PipelineSpec spec = spec(topic, url, "", "orders");
    assertThatThrownBy(() -> runAvailableNow(spec))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("Pipeline orders-pg: the table orders does not exist in " + url);
  }
}
