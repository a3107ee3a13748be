package dev.tributary.service.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchFailedException;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.registry.SchemaRegistryException;
import dev.tributary.service.registry.SchemaRegistryUnavailableException;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.service.testing.TopicContents;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka to Kafka with {@code value: avro}, through the command's path ({@link PipelineRun}),
 * against the real broker and the test registry (Confluent REST API, child process, basic auth):
 * the values are the Confluent wire format under the schema the sink registered under {@code
 * <topic>-value}, which a {@code read_committed} consumer decodes back to the rows, each once
 * across runs; a registry that refuses the schema fails the run for good, naming pipeline and
 * subject; a registry that is down fails the batch before anything is sent, and the next run sends
 * everything once.
 */
class KafkaAvroSinkPipelineIT {
  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private TestSchemaRegistry registry;

  @AfterEach
  void stopRegistry() throws Exception {
    if (registry != null) {
      registry.close();
    }
  }

  private PipelineSpec spec(String in, String out) {
    String yaml =
        """
        pipeline: avro-events
        source:
          kafka:
            bootstrap-servers: %s
            topics: [%s]
            max-offsets-per-trigger: 25
        format:
          json:
            schema: { event_id: long, user_id: string, at: timestamp, price: "decimal(10,2)" }
        transform:
          - derive: { doubled: "event_id * 2" }
        sink:
          kafka:
            topic: %s
            key: user_id
            value: avro
            registry: { url: "%s", basic-auth: "${SR_AUTH}", timeout: 2s }
        checkpoint: %s/checkpoint
        """
            .formatted(broker.bootstrapServers(), in, out, registry.url(), dir);
    return PipelineParser.parse(yaml, "avro-events.yaml", Map.of("SR_AUTH", "sink:sr-s3cret"));
  }

  private static void runAvailableNow(PipelineSpec spec) throws Exception {
    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec), new TriggerSpec.AvailableNow(), new ProgressLog(100))) {
      run.run();
    }
  }

  private static List<String> events(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(
          "{\"event_id\":"
              + i
              + ",\"user_id\":\"u"
              + (i % 3)
              + "\",\"at\":\""
              + Instant.ofEpochSecond(1_767_225_600L + i).plusNanos(123_000)
              + "\",\"price\":"
              + i
              + ".25}");
    }
    return out;
  }

  private TestSchemaRegistry startRegistry() throws Exception {
    return TestSchemaRegistry.startWith(dir.resolve("registry"), List.of("basic=sink:sr-s3cret"));
  }

  /** Decodes every committed record of {@code topic}, checking its wire header's schema id. */
  private List<GenericRecord> decoded(String topic, int schemaId) throws Exception {
    Schema schema = new Schema.Parser().parse(registry.schemaText(schemaId));
    GenericData data = new GenericData();
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(schema, schema, data);
    List<GenericRecord> rows = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicContents.readCommitted(broker.bootstrapServers(), topic)) {
      byte[] v = r.value();
      assertThat(ConfluentWireFormat.headerProblem(v, 0, v.length)).isNull();
      assertThat(ConfluentWireFormat.schemaId(v, 0)).isEqualTo(schemaId);
      GenericRecord row =
          reader.read(
              null,
              DecoderFactory.get()
                  .binaryDecoder(
                      v,
                      ConfluentWireFormat.HEADER_SIZE,
                      v.length - ConfluentWireFormat.HEADER_SIZE,
                      null));
      assertThat(new String(r.key(), StandardCharsets.UTF_8))
          .isEqualTo(row.get("user_id").toString());
      rows.add(row);
    }
    return rows;
  }

  private static List<Long> ids(List<GenericRecord> rows) {
    return rows.stream().map(r -> (Long) r.get("event_id")).toList();
  }

  private static List<Long> range(int to) {
    List<Long> ids = new ArrayList<>();
    for (long i = 0; i < to; i++) {
      ids.add(i);
    }
    return ids;
  }

  @Test
  void sendsAvroRecordsUnderTheRegisteredSchemaEachOnceAcrossRuns() throws Exception {
    registry = startRegistry();
    String in = broker.createTopic("avro-events-in", 2);
    String out = broker.createTopic("avro-events-out", 2);
    broker.send(in, 0, events(0, 40));
    broker.send(in, 1, events(40, 60));
    PipelineSpec spec = spec(in, out);

    runAvailableNow(spec);
    broker.send(in, 1, events(60, 90));
    runAvailableNow(spec); // a new run registers again: the same schema, the same id

    List<Integer> versions = registry.versionIds(out + "-value");
    assertThat(versions).as("one version, registered idempotently by both runs").hasSize(1);
    Schema registered = new Schema.Parser().parse(registry.schemaText(versions.get(0)));
    assertThat(registered.getFields())
        .extracting(Schema.Field::name)
        .containsExactly(
            "event_id",
            "user_id",
            "at",
            "price",
            "doubled",
            "_kafka_topic",
            "_kafka_partition",
            "_kafka_offset",
            "_kafka_timestamp");
    List<GenericRecord> rows = decoded(out, versions.get(0));
    assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(range(90));
    for (GenericRecord row : rows) {
      long i = (Long) row.get("event_id");
      assertThat(row.get("user_id").toString()).isEqualTo("u" + (i % 3));
      assertThat(row.get("at"))
          .isEqualTo(Instant.ofEpochSecond(1_767_225_600L + i).plusNanos(123_000));
      assertThat(row.get("price")).isEqualTo(new BigDecimal(i + ".25"));
      assertThat(row.get("_kafka_topic").toString()).isEqualTo(in);
      assertThat(((Number) row.get("doubled")).longValue()).isEqualTo(2 * i);
    }
  }

  @Test
  void aRegistryThatRefusesTheSchemaFailsTheRunNamingPipelineSubjectAndReason() throws Exception {
    registry = startRegistry();
    String in = broker.createTopic("avro-refused-in", 1);
    String out = broker.createTopic("avro-refused-out", 1);
    registry.register(
        out + "-value",
        "AVRO",
        "{\"type\":\"record\",\"name\":\"Old\",\"fields\":[{\"name\":\"event_id\",\"type\":\"string\"}]}",
        Map.of());
    registry.setCompatibility(out + "-value", "BACKWARD");
    broker.send(in, 0, events(0, 10));

    assertThatThrownBy(() -> runAvailableNow(spec(in, out)))
        .isInstanceOf(BatchFailedException.class)
        .hasMessageContaining("Pipeline avro-events")
        .rootCause()
        .isInstanceOf(SchemaRegistryException.class)
        .hasMessageStartingWith(
            "Pipeline avro-events: the schema registry at "
                + registry.url()
                + " refused the value schema for subject "
                + out
                + "-value (HTTP 409: Schema being registered is incompatible with an earlier"
                + " schema");
    assertThat(TopicContents.readUncommitted(broker.bootstrapServers(), out))
        .as("nothing sent")
        .isEmpty();
  }

  @Test
  void aRegistryOutageFailsTheBatchBeforeSendingAndTheNextRunSendsEachRecordOnce()
      throws Exception {
    registry = startRegistry();
    String in = broker.createTopic("avro-outage-in", 1);
    String out = broker.createTopic("avro-outage-out", 1);
    broker.send(in, 0, events(0, 30));
    registry.stop();

    assertThatThrownBy(() -> runAvailableNow(spec(in, out)))
        .isInstanceOf(BatchFailedException.class)
        .satisfies(
            e -> {
              Throwable t = e;
              while (t != null && !(t instanceof SchemaRegistryUnavailableException)) {
                t = t.getCause();
              }
              assertThat(t)
                  .as("transient: the registry did not answer")
                  .isNotNull()
                  .hasMessageContaining("did not answer the schema of subject " + out + "-value")
                  .hasMessageContaining("sink.kafka.registry.url")
                  .hasMessageNotContaining("sr-s3cret");
            });
    assertThat(TopicContents.readUncommitted(broker.bootstrapServers(), out))
        .as("nothing sent while the registry is down")
        .isEmpty();

    registry.start();
    runAvailableNow(spec(in, out));

    List<Integer> versions = registry.versionIds(out + "-value");
    assertThat(versions).hasSize(1);
    assertThat(ids(decoded(out, versions.get(0)))).containsExactlyInAnyOrderElementsOf(range(30));
  }
}
