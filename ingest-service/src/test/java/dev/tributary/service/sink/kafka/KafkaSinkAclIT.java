package dev.tributary.service.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.sink.SinkRefusedException;
import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.service.testing.TopicContents;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka sink against a broker that enforces ACLs, logged in as a principal granted one ACL of
 * docs/OPERATIONS.md after another: each missing one (Describe on the topic, the marker group, Read
 * on the topic for the marker's offset commit, the transactional id) is a {@link
 * SinkRefusedException} naming the resource and the grant, at once rather than retried, and with
 * every ACL the batch commits once.
 */
class KafkaSinkAclIT {
  @TempDir static Path dir;
  private static KafkaBrokerProcess broker;

  private final TableTxns txns =
      new TableTxns("acl-events", Optional.of(UUID.randomUUID().toString()));

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaBrokerProcess.startWithAcls(dir.resolve("broker"));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  private KafkaSinkSpec spec(String topic) {
    return new KafkaSinkSpec(
        broker.saslBootstrapServers(),
        topic,
        Optional.empty(),
        KafkaSinkSpec.Value.JSON,
        KafkaSinkSpec.Delivery.EXACTLY_ONCE,
        false,
        KafkaBrokerProcess.appLogin());
  }

  private KafkaTopicSink sink(KafkaSinkSpec spec) throws Exception {
    return new KafkaTopicSink(
        "acl-events", spec, KafkaTopicSinkIT.ROWS, txns, KafkaTopicSink.Latency.BATCHED);
  }

  private BatchTag tag(long batch) {
    return txns.tag(batch, Map.of(new SourcePartition("events", 0), new OffsetRange(0, batch + 1)));
  }

  private static void grant(
      ResourceType type, String name, PatternType pattern, AclOperation... ops) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      List<AclBinding> bindings =
          List.of(ops).stream()
              .map(
                  op ->
                      new AclBinding(
                          new ResourcePattern(type, name, pattern),
                          new AccessControlEntry("User:app", "*", op, AclPermissionType.ALLOW)))
              .toList();
      admin.createAcls(bindings).all().get();
    }
  }

  @Test
  void eachMissingAclIsAPermanentRefusalNamingItAndWithAllOfThemTheBatchCommits() throws Exception {
    String topic = broker.newTopic("acl-out", 1);
    KafkaSinkSpec spec = spec(topic);

    assertThatThrownBy(() -> sink(spec).close())
        .as("no ACL on the topic: describing it at open is refused")
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("refuse the sink topic " + topic)
        .hasMessageContaining(
            "--operation Write --operation Describe --operation Read --topic " + topic);

    grant(
        ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.WRITE, AclOperation.DESCRIBE);
    grant(
        ResourceType.TRANSACTIONAL_ID,
        "tributary-acl-events",
        PatternType.PREFIXED,
        AclOperation.WRITE,
        AclOperation.DESCRIBE);
    try (KafkaTopicSink sink = sink(spec)) {
      assertThatThrownBy(() -> sink.begin(tag(0)))
          .as("no ACL on the marker group: reading the marker is refused")
          .isInstanceOf(SinkRefusedException.class)
          .hasMessageContaining(
              "refuse the consumer group " + KafkaTopicSink.markerGroup(txns.batchAppId(), spec))
          .hasMessageContaining("--group tributary-acl-events --resource-pattern-type prefixed");
    }

    grant(
        ResourceType.GROUP,
        "tributary-acl-events",
        PatternType.PREFIXED,
        AclOperation.READ,
        AclOperation.DESCRIBE);
    try (KafkaTopicSink sink = sink(spec);
        TableSink.BatchWriter w = sink.begin(tag(0))) {
      w.write(new Object[] {"a", 1L, Instant.parse("2026-11-01T10:00:00Z"), "events", 0, 0L});
      assertThatThrownBy(() -> w.commit(Map.of()))
          .as("no Read on the topic: committing the marker (an offset of the topic) is refused")
          .isInstanceOf(SinkRefusedException.class)
          .hasMessageContaining("refuse the sink topic " + topic)
          .hasMessageContaining("Read with delivery: exactly-once");
    }

    grant(ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.READ);
    try (KafkaTopicSink sink = sink(spec);
        TableSink.BatchWriter w = sink.begin(tag(0))) {
      w.write(new Object[] {"a", 1L, Instant.parse("2026-11-01T10:00:00Z"), "events", 0, 0L});
      w.commit(Map.of());
    }
    assertThat(TopicContents.readCommitted(broker.bootstrapServers(), topic)).hasSize(1);
  }

  @Test
  void aTransactionalIdWithoutAnAclIsRefusedNamingIt() throws Exception {
    String topic = broker.newTopic("acl-txn", 1);
    grant(
        ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.WRITE, AclOperation.DESCRIBE);
    TableTxns other = new TableTxns("acl-other", Optional.of(UUID.randomUUID().toString()));
    KafkaSinkSpec spec = spec(topic);
    try (KafkaTopicSink sink =
        new KafkaTopicSink(
            "acl-other", spec, KafkaTopicSinkIT.ROWS, other, KafkaTopicSink.Latency.BATCHED)) {
      assertThatThrownBy(
              () ->
                  sink.begin(
                      other.tag(
                          0, Map.of(new SourcePartition("events", 0), new OffsetRange(0, 1)))))
          .isInstanceOf(SinkRefusedException.class)
          .hasMessageContaining(
              "refuse the transactional id "
                  + KafkaTopicSink.transactionalId(other.batchAppId(), spec)
                  + " (not authorized)");
    }
  }
}
