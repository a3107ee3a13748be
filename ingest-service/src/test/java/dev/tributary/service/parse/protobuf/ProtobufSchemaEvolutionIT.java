package dev.tributary.service.parse.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TestSchemaRegistry;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Protobuf producer that moves from message v1 to v2 (two new fields) mid-stream, against the
 * real broker and the test registry, under {@code schema-evolution: { mode: add-columns }}: three
 * v1 records then three v2 records, one batch each ({@code max-offsets-per-trigger: 3}). The new
 * fields become columns in the commit of the first rows carrying them; the v1 rows read null there,
 * and every record lands once.
 */
class ProtobufSchemaEvolutionIT {
  private static final String V1 =
      """
      syntax = "proto3";
      package shop;
      message Order {
        string id = 1;
        int64 amount = 2;
      }
      """;
  private static final String V2 =
      """
      syntax = "proto3";
      package shop;
      message Order {
        string id = 1;
        int64 amount = 2;
        string channel = 3;
        optional double score = 4;
      }
      """;

  private final KafkaTestBroker broker = KafkaTestBroker.shared();
  @TempDir Path dir;
  private TestSchemaRegistry registry;

  @AfterEach
  void stopRegistry() throws Exception {
    if (registry != null) {
      registry.close();
    }
  }

  private static byte[] wire(int id, ProtobufSchema schema, DynamicMessage m) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(ConfluentWireFormat.header(id));
    out.writeBytes(schema.indexesOf(m.getDescriptorForType()).toBytes());
    out.writeBytes(m.toByteArray());
    return out.toByteArray();
  }

  private PipelineSpec spec(String topic) {
    String yaml =
        """
        pipeline: protobuf-evolution
        source:
          kafka: { bootstrap-servers: "%s", topics: [%s], max-offsets-per-trigger: 3 }
        format:
          protobuf:
            message: shop.Order
            registry: { url: "%s" }
            schema: { id: string, amount: long }
        sink: { delta: { path: %s } }
        checkpoint: %s
        trigger: { available-now: true }
        schema-evolution: { mode: add-columns }
        """
            .formatted(
                broker.bootstrapServers(),
                topic,
                registry.url(),
                dir.resolve("table"),
                dir.resolve("checkpoint"));
    return PipelineParser.parse(yaml, "protobuf-evolution.yaml", Map.of());
  }

  @Test
  void addColumnsAddsTheNewFieldsInTheCommitOfTheirFirstRows() throws Exception {
    registry = TestSchemaRegistry.start(dir.resolve("registry"));
    String topic = broker.createTopic("protobuf-evolution", 1);
    int n = 1;
    try (KafkaProducer<byte[], byte[]> producer = broker.producer()) {
      for (String text : List.of(V1, V2)) {
        int id = registry.register(topic + "-value", "PROTOBUF", text, Map.of());
        ProtobufSchema schema = ProtobufSchema.compile(text, Map.of());
        Descriptor d = schema.message("shop.Order").orElseThrow();
        for (int i = 0; i < 3; i++, n++) {
          DynamicMessage.Builder b =
              DynamicMessage.newBuilder(d)
                  .setField(d.findFieldByName("id"), String.format("o%02d", n))
                  .setField(d.findFieldByName("amount"), n * 10L);
          if (d.findFieldByName("channel") != null) {
            b.setField(d.findFieldByName("channel"), "web");
            if (i != 2) {
              b.setField(d.findFieldByName("score"), n + 0.5);
            }
          }
          producer.send(new ProducerRecord<>(topic, 0, null, wire(id, schema, b.build()))).get();
        }
      }
    }

    try (PipelineRun run =
        PipelineRun.open(
            PipelineFactory.compile(spec(topic)),
            new TriggerSpec.AvailableNow(),
            new ProgressLog(100))) {
      run.run();
    }

    try (ObjectStore store = ObjectStores.open(dir.resolve("table").toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      StructType schema = table.snapshot().schema();
      assertThat(schema.fieldNames())
          .containsExactly(
              "id",
              "amount",
              "_kafka_topic",
              "_kafka_partition",
              "_kafka_offset",
              "_kafka_timestamp",
              "channel",
              "score");
      assertThat(schema.fields().get(6).type()).isEqualTo(PrimitiveType.STRING);
      assertThat(schema.fields().get(7).type()).isEqualTo(PrimitiveType.DOUBLE);

      List<List<Object>> rows = new ArrayList<>();
      for (Object[] r : TableContents.rows(store)) {
        rows.add(
            Arrays.asList(
                r[schema.indexOf("id")],
                r[schema.indexOf("amount")],
                r[schema.indexOf("channel")],
                r[schema.indexOf("score")]));
      }
      rows.sort(Comparator.comparing(l -> (String) l.get(0)));
      assertThat(rows)
          .containsExactly(
              Arrays.asList("o01", 10L, null, null),
              Arrays.asList("o02", 20L, null, null),
              Arrays.asList("o03", 30L, null, null),
              Arrays.asList("o04", 40L, "web", 4.5),
              Arrays.asList("o05", 50L, "web", 5.5),
              Arrays.asList("o06", 60L, "web", null)); // an unset optional adds nothing

      // The columns came with the v2 batch's rows: one commit holds the wider metaData and its add
      // actions,
      // and the v1 batch was committed before it with the declared schema.
      DeltaLog log = new DeltaLog(store);
      long latest = table.snapshot().version();
      List<Long> widening = new ArrayList<>();
      boolean v1RowsBefore = false;
      for (long v = 0; v <= latest; v++) {
        List<Action> actions = log.readCommit(v);
        if (actions.stream()
            .anyMatch(a -> a instanceof Metadata m && m.schemaString().contains("\"channel\""))) {
          widening.add(v);
          assertThat(actions)
              .as("commit %d", v)
              .anySatisfy(a -> assertThat(a).isInstanceOf(AddFile.class));
        } else if (widening.isEmpty() && actions.stream().anyMatch(a -> a instanceof AddFile)) {
          v1RowsBefore = true;
        }
      }
      assertThat(widening).as("commits with a metaData action holding channel").hasSize(1);
      assertThat(v1RowsBefore)
          .as("the v1 rows were committed before the columns were added")
          .isTrue();
    }
    try (ObjectStore store = ObjectStores.open(dir.resolve("table-quarantine").toString(), null)) {
      assertThat(TableContents.rows(store)).as("nothing quarantined").isEmpty();
    }
  }
}
