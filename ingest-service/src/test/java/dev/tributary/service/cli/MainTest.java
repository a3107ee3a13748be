package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.join.DimensionTables;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's contract: exit codes, messages on stderr, the printed plan. */
class MainTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  private int run(String... args) {
    return cli.run(args);
  }

  private String out() {
    return cli.out();
  }

  private String err() {
    return cli.err();
  }

  private Path write(String name, String yaml) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, yaml);
    return file;
  }

  private static final String VALID =
      """
      pipeline: orders-raw
      source:
        kafka:
          bootstrap-servers: localhost:9092
          topics: [orders]
      format:
        json:
          schema:
            order_id: string
            amount_cents: long
      transform:
        - filter: "amount_cents > 0"
        - derive: { amount: "amount_cents / 100.0" }
      sink:
        delta:
          path: /tmp/tables/orders
      checkpoint: /tmp/checkpoints/orders
      """;

  @Test
  void validatePrintsThePlanOfAValidPipeline() throws Exception {
    Path file = write("orders.yaml", VALID);
    assertThat(run("validate", file.toString())).isZero();
    assertThat(out())
        .contains("Pipeline orders-raw")
        .contains("is valid")
        .contains("trigger:     processing-time 10")
        .contains("amount double")
        .contains("_kafka_offset long")
        .contains("filter(amount_cents > 0)");
  }

  @Test
  void validatePrintsTheAvroFormatWithItsRegistryAndKeyColumnsAndMasksTheCredentials()
      throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID.replace(
                """
          json:
            schema:
              order_id: string
              amount_cents: long
        """,
                """
          avro:
            registry: { url: "http://127.0.0.1:8081", basic-auth: "reader:plain-secret" }
            schema: { order_id: string, amount_cents: long }
            key: { customer_id: string }
        """));

    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains("avro (registry http://127.0.0.1:8081), 3 columns")
        .contains("customer_id string")
        .doesNotContain("plain-secret");
  }

  @Test
  void validatePrintsTheProtobufFormatWithItsMessageRegistryAndKeyColumns() throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID.replace(
                """
          json:
            schema:
              order_id: string
              amount_cents: long
        """,
                """
          protobuf:
            message: shop.Order
            registry: { url: "http://127.0.0.1:8081", bearer-token: "plain-token" }
            schema: { order_id: string, amount_cents: long }
            key: { customer_id: string }
        """));

    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains("protobuf message shop.Order (registry http://127.0.0.1:8081), 3 columns")
        .contains("customer_id string")
        .doesNotContain("plain-token");
  }

  @Test
  void validateSaysAGroupPipelineSharesItsPartitions() throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID.replace("topics: [orders]", "topics: [orders]\n    assignment: group"));
    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains("partitions shared by the instances of consumer group tributary-orders-raw");
    assertThat(run("validate", write("plain.yaml", VALID).toString())).isZero();
    assertThat(out().substring(out().indexOf("plain.yaml"))).doesNotContain("consumer group");
  }

  @Test
  void validateNamesTheRepartitionColumnsOfAStatefulGroupPipeline() throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID
                    .replace("topics: [orders]", "topics: [orders]\n    assignment: group")
                    .replace(
                        "amount_cents: long",
                        "amount_cents: long\n      customer: string\n      ts: timestamp")
                + """
        watermark: { column: ts, delay: 10 minutes }
        deduplicate: { keys: [order_id, ts] }
        aggregate:
          window: { column: ts, size: 5 minutes }
          group-by: [customer]
          measures: { orders: count() }
        """);
    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains(
            "topic tributary-orders-raw-repartition keyed by [customer], its partitions shared by"
                + " consumer group tributary-orders-raw-repartition")
        .contains("/tmp/checkpoints/orders/partitions/<n>/")
        .contains(
            "ts - 10 minutes (group: the max event time over the source partitions, held by any with"
                + " records still to read)");
    assertThat(run("validate", write("plain.yaml", VALID).toString())).isZero();
    assertThat(out().substring(out().indexOf("plain.yaml"))).doesNotContain("repartition");
  }

  @Test
  void validateShowsSchemaEvolutionAndTheQuarantineThreshold() throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID
                + "schema-evolution: { mode: add-columns, rescue: true }\n"
                + "quarantine: { max-fraction: 0.05 }\n");
    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains(
            "_kafka_timestamp timestamp, _rescued_data string, then the columns new fields add")
        .contains(
            "quarantine:  delta /tmp/tables/orders-quarantine, fail a batch that quarantines more than 0.05"
                + " of its records")
        .contains(
            "schema-evolution: mode add-columns (new top-level fields become nullable sink columns), rescue"
                + " true (undeclared fields and misfit values kept in _rescued_data)");
    Path plain = write("plain.yaml", VALID);
    assertThat(run("validate", plain.toString())).isZero();
    assertThat(out().substring(out().indexOf("plain.yaml"))).doesNotContain("schema-evolution");
  }

  @Test
  void validatePrintsEachJoinWithItsTableKeysTypeAndColumns() throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID
                + """
        join:
          - delta: { path: /tmp/dims/customers }
            on: [order_id]
            type: left
            columns: [segment, region]
          - delta: { path: /tmp/dims/orders, storage: { s3: { endpoint: "http://127.0.0.1:9000" } } }
            on: [order_id]
            max-size: 1GB
        """);

    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains(
            "join[0]:     left join with delta /tmp/dims/customers on [order_id], adds [segment, region];"
                + " refused above 64MB of data files; version re-read each batch, pinned on replay")
        .contains(
            "join[1]:     inner join with delta /tmp/dims/orders on [order_id], adds every dimension column"
                + " but the keys and _kafka_* (read from the table at start); refused above 1GB")
        .contains(
            "_kafka_timestamp timestamp, segment, region (from join[0]), the columns of join[1])");
  }

  @Test
  void validateAcceptsAStatefulPipelineThatAggregatesByAJoinedColumn() throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID.replace(
                    "      amount_cents: long",
                    """
              amount_cents: long
              event_time: timestamp
        """
                        .stripTrailing())
                + """
        join:
          - delta: { path: /tmp/dims/c }
            on: [order_id]
            type: left
            columns: [segment]
        watermark: { column: event_time, delay: 10 minutes }
        deduplicate: { keys: [order_id, event_time] }
        aggregate:
          window: { column: event_time, size: 1 hour }
          group-by: [segment]
          measures: { orders: count(), amount: sum(amount_cents) }
        output-mode: append
        """);

    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains("join[0]:     left join with delta /tmp/dims/c on [order_id], adds [segment]")
        .contains(
            "window_start, window_end, segment, orders, amount (types known at start, after the joins)");
  }

  @Test
  void validateNamesAStatefulColumnThatNoJoinPicks() throws Exception {
    Path file =
        write(
            "orders.yaml",
            VALID
                + """
        join:
          - delta: { path: /tmp/dims/c }
            on: [order_id]
            columns: [segment]
        deduplicate: { keys: [order_id, region] }
        """);

    assertThat(run("validate", file.toString())).isEqualTo(1);
    assertThat(err()).contains("deduplicate key 'region' is not a column of the pipeline");
  }

  @Test
  void validateSaysARunningAggregationKeepsOneStateEntryPerKeyForever() throws Exception {
    Path file =
        write(
            "running.yaml",
            VALID.replace(
                    "      amount_cents: long",
                    """
              amount_cents: long
              customer_id: string
        """
                        .stripTrailing())
                + """
        aggregate:
          group-by: [customer_id]
          measures: { orders: count(), first_amount: first(amount), customers: approx_count_distinct(customer_id) }
        output-mode: update
        """);
    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains(
            "aggregate:   running group by [customer_id] measures orders=count(),"
                + " first_amount=first(amount), customers=approx_count_distinct(customer_id)")
        .contains(
            "state:       one entry per distinct [customer_id] value, never evicted: bounded only by the"
                + " number of keys (the watermark does not evict a running aggregation)")
        .contains(
            "output:      customer_id string, orders long, first_amount double, customers long");
  }

  @Test
  void validatePrintsTheWatermarkPolicy() throws Exception {
    Path file =
        write(
            "orders-wm.yaml",
            """
        pipeline: orders-dedup
        source: { kafka: { bootstrap-servers: "localhost:9092", topics: [orders] } }
        format: { json: { schema: { order_id: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes, policy: per-partition }
        deduplicate: { keys: [order_id, event_ts] }
        sink: { delta: { path: /tmp/tables/orders-dedup } }
        checkpoint: /tmp/checkpoints/orders-dedup
        """);
    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out()).contains("(per-partition: follows the slowest partition with records)");
  }

  @Test
  void validatePrintsTheWatermarkIdleTimeout() throws Exception {
    Path file =
        write(
            "orders-idle.yaml",
            """
        pipeline: orders-dedup
        source: { kafka: { bootstrap-servers: "localhost:9092", topics: [orders] } }
        format: { json: { schema: { order_id: string, event_ts: timestamp } } }
        watermark: { column: event_ts, delay: 10 minutes, idle-timeout: 5 minutes }
        deduplicate: { keys: [order_id, event_ts] }
        sink: { delta: { path: /tmp/tables/orders-dedup } }
        checkpoint: /tmp/checkpoints/orders-dedup
        """);
    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains("(global: the max event time over all partitions)")
        .contains("idle-timeout 5 minutes has no effect here");
  }

  @Test
  void validateExitsOneAndNamesFileLineAndKeyOfEachError() throws Exception {
    Path file =
        write(
            "bad.yaml",
            VALID.replace("topics: [orders]", "topics: [orders]\n    max-offsets-per-triger: 5"));
    assertThat(run("validate", file.toString())).isEqualTo(1);
    assertThat(err()).contains("bad.yaml:6:").contains("max-offsets-per-trigger");
  }

  @Test
  void validateReportsExpressionErrorsWithTheirPosition() throws Exception {
    Path file = write("expr.yaml", VALID.replace("amount_cents > 0", "amount_cent > 0"));
    assertThat(run("validate", file.toString())).isEqualTo(1);
    assertThat(err()).contains("orders-raw").contains("amount_cent").contains("amount_cents");
  }

  @Test
  void aFilterOfTwoThousandOrTermsIsRefusedWithItsLineNotAStackOverflow() throws Exception {
    String ors = "amount_cents = 0" + " OR amount_cents = 1".repeat(2000);
    Path file = write("ors.yaml", VALID.replace("\"amount_cents > 0\"", "\"" + ors + "\""));
    assertThat(run("validate", file.toString())).isEqualTo(1);
    assertThat(err())
        .contains("ors.yaml:12:13: transform[0].filter")
        .doesNotContain("StackOverflow");
  }

  @Test
  void lateEventsWithoutAWatermarkAreRefusedNotIgnored() throws Exception {
    Path file = write("late.yaml", VALID + "late-events:\n  delta: { path: /tmp/late }\n");
    assertThat(run("validate", file.toString())).isEqualTo(1);
    assertThat(err()).contains("late-events").contains("watermark");
  }

  @Test
  void aColumnThatIsBothAValueAndAStructIsReportedNotThrown() throws Exception {
    Path file =
        write(
            "clash.yaml",
            VALID.replace(
                "order_id: string",
                "order_id: string\n      customer: string\n" + "      customer.id: string"));
    assertThat(run("validate", file.toString())).isEqualTo(1);
    assertThat(err()).contains("customer").doesNotContain("\tat ");
  }

  @Test
  void validateRefusesACheckpointInsideTheSinkTable() throws Exception {
    Path file =
        write(
            "nested.yaml",
            VALID.replace("/tmp/checkpoints/orders", "/tmp/tables/orders/_checkpoint"));
    assertThat(run("validate", file.toString())).isEqualTo(1);
    assertThat(err())
        .isEqualTo(
            file
                + ":17:13: checkpoint: the checkpoint location '/tmp/tables/orders/_checkpoint'"
                + " is inside the sink.delta.path location '/tmp/tables/orders': vacuum of the table at /tmp/tables/orders"
                + " deletes every file under it that the table does not reference; give each its own folder, side by side"
                + " rather than one inside the other, for example /tmp/tables/orders-checkpoint"
                + System.lineSeparator());
  }

  @Test
  void vacuumRefusesARetentionUnderSevenDaysUnlessTheCheckIsOff() throws Exception {
    Path table = dir.resolve("t");
    var store = ObjectStores.open(table.toString(), null);
    DeltaTable.open(store, TableOptions.defaults())
        .create(
            new StructType(List.of(new StructField("order_id", PrimitiveType.STRING, true))),
            List.of(),
            Map.of());
    Path orphan = table.resolve("part-00000-orphan.parquet");
    Files.write(orphan, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
    String yaml =
        VALID
                .replace("/tmp/tables/orders", table.toString())
                .replace("/tmp/checkpoints/orders", dir.resolve("c").toString())
            + "maintenance:\n  vacuum: { schedule: \"0 0 3 * * *\", retention: 1s%s }\n";
    Path checked = write("short.yaml", yaml.formatted(""));

    assertThat(run("vacuum", "--pipeline", checked.toString())).isEqualTo(2);
    assertThat(err())
        .startsWith(
            checked
                + ":19:49: maintenance.vacuum.retention: vacuum retention 1 second is under"
                + " the minimum of 7 days")
        .contains("set maintenance.vacuum.retention-check: false");
    assertThat(orphan).exists();

    Path unchecked = write("unchecked.yaml", yaml.formatted(", retention-check: false"));
    assertThat(run("vacuum", "--pipeline", unchecked.toString())).isZero();
    assertThat(out())
        .contains(
            "vacuum orders-raw "
                + table
                + ": deleted 1 file (3 bytes) no longer referenced and older than 1 second");
    assertThat(orphan).doesNotExist();
    store.close();
  }

  @Test
  void validateShowsPlainReferencesAndMasksSecretOnes() throws Exception {
    // Unset variables: their defaults are what the references put in.
    Path file =
        write(
            "refs.yaml",
            VALID.replace(
                "bootstrap-servers: localhost:9092",
                "bootstrap-servers: \"${TRIBUTARY_TEST_UNSET_BOOTSTRAP:-kafka-eu:9092}\"\n"
                    + "    properties:\n"
                    + "      client.id: \"${TRIBUTARY_TEST_UNSET_PASSWORD:-dev-password-1}\""));

    assertThat(run("validate", file.toString())).as(err()).isZero();
    assertThat(out())
        .contains("source:      kafka kafka-eu:9092 ")
        .contains(
            "environment: ${TRIBUTARY_TEST_UNSET_BOOTSTRAP} = kafka-eu:9092;"
                + " ${TRIBUTARY_TEST_UNSET_PASSWORD} = ******")
        .doesNotContain("dev-password-1");
  }

  @Test
  void compactPrintsWhatItDidInWords() throws Exception {
    Path table = dir.resolve("small-files");
    DimensionTables files =
        DimensionTables.create(
            table, List.<Object[]>of(DimensionTables.customer("c1", "s", "EU", 1)));
    files.append(List.<Object[]>of(DimensionTables.customer("c2", "s", "EU", 1)));
    files.append(List.<Object[]>of(DimensionTables.customer("c3", "s", "US", 2)));
    Path file =
        write(
            "compact.yaml",
            VALID
                    .replace("/tmp/tables/orders", table.toString())
                    .replace("/tmp/checkpoints/orders", dir.resolve("c").toString())
                + "maintenance:\n  compaction: { schedule: \"0 0 * * * *\", min-files: 2 }\n");

    assertThat(run("compact", "--pipeline", file.toString())).as(err()).isZero();
    assertThat(out())
        .matches(
            "compact orders-raw "
                + Pattern.quote(table.toString())
                + ": compacted 3 files \\([\\d.]+ KB\\) into 1 file \\([\\d.]+ (bytes|KB)\\)"
                + " in 1 commit \\(table version 4\\)\\R");

    cli.reset();
    assertThat(run("compact", "--pipeline", file.toString())).isZero();
    assertThat(out())
        .isEqualTo(
            "compact orders-raw "
                + table
                + ": nothing to compact at table version 4: no partition has 2 or more files"
                + " smaller than the target file size"
                + System.lineSeparator());
  }

  @Test
  void runWithAnInvalidDeclarationExitsTwo() throws Exception {
    Path file = write("bad.yaml", VALID.replace("pipeline: orders-raw", "pipeline: Orders_Raw"));
    assertThat(run("run", "--pipeline", file.toString())).isEqualTo(2);
    assertThat(err()).contains("bad.yaml:1:").contains("pipeline");
  }

  @Test
  void usageErrorsExitTwoWithTheUsage() {
    assertThat(run()).isEqualTo(2);
    assertThat(run("frobnicate")).isEqualTo(2);
    assertThat(err()).contains("unknown command 'frobnicate'").contains("Usage:");
    assertThat(run("run")).isEqualTo(2);
    assertThat(err()).contains("run needs --pipeline FILE");
    assertThat(run("run", "--pipeline", dir.resolve("missing.yaml").toString())).isEqualTo(2);
    assertThat(err()).contains("no such pipeline file");
    assertThat(run("run", "--pipeline", "x.yaml", "--bogus")).isEqualTo(2);
    assertThat(err()).contains("unknown option --bogus");
  }

  @Test
  void aFailingRunExitsOneWithOneParagraphAndNoStackTrace() throws Exception {
    Path file =
        write(
            "unreachable.yaml",
            VALID
                    .replace(
                        "localhost:9092",
                        // an unreachable broker: Kafka metadata calls time out; a short timeout
                        // keeps the test fast
                        "127.0.0.1:1\n    properties: { default.api.timeout.ms: \"2000\" }")
                    .replace("/tmp/tables/orders", dir.resolve("t").toString())
                    .replace("/tmp/checkpoints/orders", dir.resolve("c").toString())
                + "trigger: { available-now: true }\n");
    // an unreachable broker with a short metadata timeout (in the file) and no riding out (a limit
    // of 0: the first transient failure ends the run)
    assertThat(run("run", "--pipeline", file.toString(), "--max-outage", "0s")).isEqualTo(1);
    assertThat(err())
        .startsWith("tributary: ")
        .doesNotContain("\tat ")
        .contains("Pipeline orders-raw")
        .contains("127.0.0.1:1")
        .contains("source.kafka.bootstrap-servers")
        .contains("gave up after an outage of")
        .contains("raise --max-outage");
  }

  @Test
  void aUiPortThatIsNotAPortIsAUsageError() throws Exception {
    Path file = write("orders.yaml", VALID);
    assertThat(run("run", "--pipeline", file.toString(), "--ui-port", "http")).isEqualTo(2);
    assertThat(err())
        .contains("--ui-port must be a port number (0 to 65535; 0 = any free port), was http")
        .contains("Usage:")
        .contains("[--ui-port PORT]");
  }

  @Test
  void aMaxOutageThatIsNotADurationIsAUsageError() throws Exception {
    Path file = write("orders.yaml", VALID);
    assertThat(run("run", "--pipeline", file.toString(), "--max-outage", "forever")).isEqualTo(2);
    assertThat(err())
        .contains("--max-outage: cannot parse 'forever' as a duration")
        .contains("Usage:");
  }
}
