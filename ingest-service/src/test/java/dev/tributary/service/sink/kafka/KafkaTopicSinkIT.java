package dev.tributary.service.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.PartitionMovedException;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.sink.SinkRefusedException;
import dev.tributary.service.testing.KafkaTestBroker;
import dev.tributary.service.testing.TopicContents;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The Kafka sink against a real broker: records and the batch's marker in one transaction, a held
 * batch skipped, a restart that aborts and fences the last run's open transaction, at-least-once
 * without transactions, and a missing topic refused.
 */
class KafkaTopicSinkIT {
  static final StructType ROWS =
      new StructType(
          List.of(
              StructField.nullable("user_id", PrimitiveType.STRING),
              StructField.nullable("amount", PrimitiveType.LONG),
              StructField.nullable("at", PrimitiveType.TIMESTAMP),
              StructField.nullable("_kafka_topic", PrimitiveType.STRING),
              StructField.nullable("_kafka_partition", PrimitiveType.INTEGER),
              StructField.nullable("_kafka_offset", PrimitiveType.LONG)));

  final KafkaTestBroker broker = KafkaTestBroker.shared();
  final TableTxns txns = new TableTxns("clean-events", Optional.of(UUID.randomUUID().toString()));

  KafkaSinkSpec spec(String topic, KafkaSinkSpec.Delivery delivery) {
    return new KafkaSinkSpec(
        broker.bootstrapServers(),
        topic,
        Optional.of("upper(user_id)"),
        KafkaSinkSpec.Value.JSON,
        delivery,
        true,
        Map.of());
  }

  KafkaTopicSink sink(KafkaSinkSpec spec) throws IOException {
    return new KafkaTopicSink("clean-events", spec, ROWS, txns, KafkaTopicSink.Latency.BATCHED);
  }

  BatchTag tag(long batch) {
    return txns.tag(batch, Map.of(new SourcePartition("events", 0), new OffsetRange(0, batch + 1)));
  }

  static Object[] row(String user, long amount, long offset) {
    return new Object[] {user, amount, Instant.parse("2026-11-01T10:00:00Z"), "events", 0, offset};
  }

  static void write(TableSink.BatchWriter w, Object[]... rows) throws IOException {
    for (Object[] r : rows) {
      w.write(r);
    }
  }

  static String value(ConsumerRecord<byte[], byte[]> r) {
    return new String(r.value(), StandardCharsets.UTF_8);
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void commitsRecordsWithTheBatchMarkerAndSkipsABatchTheTopicHolds() throws Exception {
    String topic = broker.createTopic("clean", 2);
    try (KafkaTopicSink sink = sink(spec(topic, KafkaSinkSpec.Delivery.EXACTLY_ONCE))) {
      try (TableSink.BatchWriter w = sink.begin(tag(0))) {
        write(w, row("a", 1, 10), row("b", 2, 11));
        assertThat(w.commit(Map.of())).isEqualTo(-1);
      }
      try (TableSink.BatchWriter replay = sink.begin(tag(0))) {
        assertThat(replay.alreadyCommitted()).as("the marker says batch 0 is held").isTrue();
      }
      try (TableSink.BatchWriter aborted = sink.begin(tag(1))) {
        write(aborted, row("c", 3, 12));
        // closed without a commit: a crash before the commit
      }
      try (TableSink.BatchWriter w = sink.begin(tag(1))) {
        assertThat(w.alreadyCommitted()).isFalse();
        write(w, row("c", 3, 12));
        w.commit(Map.of());
      }
      // read right after the commit, before the coordinator may have applied the transaction's
      // marker to the group's offsets: the stable fetch waits for it (MarkerReader)
      assertThat(sink.heldBatch()).isEqualTo(1);
    }
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicContents.readCommitted(broker.bootstrapServers(), topic);
    assertThat(records)
        .extracting(KafkaTopicSinkIT::value)
        .containsExactlyInAnyOrder(
            "{\"user_id\":\"a\",\"amount\":1,\"at\":\"2026-11-01T10:00:00Z\",\"_kafka_topic\":\"events\",\"_kafka_partition\":0,\"_kafka_offset\":10}",
            "{\"user_id\":\"b\",\"amount\":2,\"at\":\"2026-11-01T10:00:00Z\",\"_kafka_topic\":\"events\",\"_kafka_partition\":0,\"_kafka_offset\":11}",
            "{\"user_id\":\"c\",\"amount\":3,\"at\":\"2026-11-01T10:00:00Z\",\"_kafka_topic\":\"events\",\"_kafka_partition\":0,\"_kafka_offset\":12}");
    ConsumerRecord<byte[], byte[]> c =
        records.stream().filter(r -> value(r).contains("\"c\"")).findFirst().orElseThrow();
    assertThat(new String(c.key(), StandardCharsets.UTF_8)).isEqualTo("C");
    assertThat(header(c, KafkaTopicSink.HEADER_PIPELINE)).isEqualTo("clean-events");
    assertThat(header(c, KafkaTopicSink.HEADER_BATCH)).isEqualTo("1");
    assertThat(header(c, KafkaTopicSink.HEADER_SOURCE_TOPIC)).isEqualTo("events");
    assertThat(header(c, KafkaTopicSink.HEADER_SOURCE_PARTITION)).isEqualTo("0");
    assertThat(header(c, KafkaTopicSink.HEADER_SOURCE_OFFSET)).isEqualTo("12");
  }

  @Test
  void aRestartAbortsTheTransactionTheLastRunLeftOpenAndFencesThatRun() throws Exception {
    String topic = broker.createTopic("clean-zombie", 1);
    KafkaSinkSpec spec = spec(topic, KafkaSinkSpec.Delivery.EXACTLY_ONCE);
    try (KafkaTopicSink zombie = sink(spec)) {
      TableSink.BatchWriter open = zombie.begin(tag(0));
      write(open, row("z", 1, 0), row("z", 2, 1));
      try (KafkaTopicSink next = sink(spec)) {
        // the next run's first begin aborts the open transaction (same transactional id)
        try (TableSink.BatchWriter w = next.begin(tag(0))) {
          assertThat(w.alreadyCommitted()).isFalse();
          write(w, row("n", 1, 0), row("n", 2, 1));
          w.commit(Map.of());
        }
      }
      assertThatThrownBy(() -> open.commit(Map.of()))
          .isInstanceOf(PartitionMovedException.class)
          .hasMessageContaining(
              "Pipeline clean-events: batch 0 to topic "
                  + topic
                  + " was fenced off: another run of the same checkpoint took the transactional id "
                  + KafkaTopicSink.transactionalId(txns.batchAppId(), spec)
                  + " over");
      open.close();
    }
    assertThat(TopicContents.readCommitted(broker.bootstrapServers(), topic))
        .extracting(r -> value(r).substring(0, 15))
        .containsExactly("{\"user_id\":\"n\",", "{\"user_id\":\"n\",");
  }

  @Test
  void atLeastOnceSendsAtOnceAndAgainOnReplay() throws Exception {
    String topic = broker.createTopic("clean-alo", 1);
    try (KafkaTopicSink sink = sink(spec(topic, KafkaSinkSpec.Delivery.AT_LEAST_ONCE))) {
      for (int attempt = 0; attempt < 2; attempt++) {
        try (TableSink.BatchWriter w = sink.begin(tag(0))) {
          assertThat(w.alreadyCommitted()).isFalse();
          write(w, row("a", 1, 0));
          w.commit(Map.of());
        }
      }
    }
    assertThat(TopicContents.readUncommitted(broker.bootstrapServers(), topic)).hasSize(2);
  }

  @Test
  void aMissingTopicIsRefusedNamingIt() {
    assertThatThrownBy(
            () ->
                sink(
                    spec(
                        "no-such-topic-" + UUID.randomUUID(), KafkaSinkSpec.Delivery.EXACTLY_ONCE)))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("Pipeline clean-events: the sink topic no-such-topic-")
        .hasMessageContaining("does not exist on " + broker.bootstrapServers())
        .hasMessageContaining("Create it");
  }
}
