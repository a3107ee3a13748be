package dev.tributary.service.sink.kafka;

import dev.tributary.config.KafkaSinkSpec;

/** The Kafka sink's messages: what failed, where, and what to do. */
final class KafkaSinkMessages {
  private KafkaSinkMessages() {}

  static String missingTopic(String pipeline, KafkaSinkSpec spec) {
    return "Pipeline "
        + pipeline
        + ": the sink topic "
        + spec.topic()
        + " does not exist on "
        + spec.bootstrapServers()
        + ". Create it (kafka-topics.sh --create --topic "
        + spec.topic()
        + " --partitions N), or correct sink.kafka.topic";
  }

  static String unreachable(String pipeline, KafkaSinkSpec spec, Throwable cause) {
    return "Pipeline "
        + pipeline
        + ": cannot reach the sink brokers "
        + spec.bootstrapServers()
        + " to describe topic "
        + spec.topic()
        + ": "
        + cause
        + ". Check sink.kafka.bootstrap-servers and the network";
  }

  static String markerUnreadable(
      String pipeline, KafkaSinkSpec spec, String group, Throwable cause) {
    return "Pipeline "
        + pipeline
        + ": cannot read which batches the topic "
        + spec.topic()
        + " holds (the committed offsets of consumer group "
        + group
        + " on "
        + spec.bootstrapServers()
        + "): "
        + cause
        + ". The principal needs Describe and Read on that group (docs/OPERATIONS.md, \"The Kafka"
        + " sink\")";
  }

  static String fenced(String pipeline, KafkaSinkSpec spec, long batch, String transactionalId) {
    return "Pipeline "
        + pipeline
        + ": batch "
        + batch
        + " to topic "
        + spec.topic()
        + " was fenced off: another run of the same checkpoint took the transactional id "
        + transactionalId
        + " over, so this run stops (nothing of its open transaction becomes visible)";
  }

  static String notAuthorized(String pipeline, KafkaSinkSpec spec, String transactionalId) {
    return "Pipeline "
        + pipeline
        + ": the brokers "
        + spec.bootstrapServers()
        + " refuse the transactional id "
        + transactionalId
        + " (not authorized). Grant the principal Write and Describe on it, by prefix"
        + " (kafka-acls.sh --add --allow-principal User:<principal> --operation Write --operation"
        + " Describe --transactional-id tributary-"
        + pipeline
        + " --resource-pattern-type prefixed; docs/OPERATIONS.md, \"The Kafka sink\"), or use"
        + " sink.kafka.delivery: at-least-once";
  }

  static String topicNotAuthorized(String pipeline, KafkaSinkSpec spec) {
    return "Pipeline "
        + pipeline
        + ": the brokers "
        + spec.bootstrapServers()
        + " refuse the sink topic "
        + spec.topic()
        + " to this principal (not authorized). Grant it Write and Describe on the topic, and"
        + " Read with delivery: exactly-once (the batch marker is an offset committed on it)"
        + " (kafka-acls.sh --add --allow-principal User:<principal> --operation Write"
        + " --operation Describe --operation Read --topic "
        + spec.topic()
        + "; docs/OPERATIONS.md, \"The Kafka sink\")";
  }

  static String groupNotAuthorized(String pipeline, KafkaSinkSpec spec, String group) {
    return "Pipeline "
        + pipeline
        + ": the brokers "
        + spec.bootstrapServers()
        + " refuse the consumer group "
        + group
        + ", where the sink records which batches topic "
        + spec.topic()
        + " holds (not authorized). Grant the principal Read and Describe on it, by prefix"
        + " (kafka-acls.sh --add --allow-principal User:<principal> --operation Read --operation"
        + " Describe --group tributary-"
        + pipeline
        + " --resource-pattern-type prefixed; docs/OPERATIONS.md, \"The Kafka sink\"), or use"
        + " sink.kafka.delivery: at-least-once";
  }

  static String clusterNotAuthorized(String pipeline, KafkaSinkSpec spec) {
    return "Pipeline "
        + pipeline
        + ": the brokers "
        + spec.bootstrapServers()
        + " refuse the sink's producer a cluster operation (not authorized): brokers older than"
        + " 2.8 need IdempotentWrite on the cluster for an idempotent producer. Grant it"
        + " (kafka-acls.sh --add --allow-principal User:<principal> --operation IdempotentWrite"
        + " --cluster; docs/OPERATIONS.md, \"The Kafka sink\")";
  }

  static String sendFailed(String pipeline, KafkaSinkSpec spec, long batch, Throwable cause) {
    return "Pipeline "
        + pipeline
        + ": sending batch "
        + batch
        + " to topic "
        + spec.topic()
        + " failed: "
        + cause
        + "; the batch is sent again when the run restarts";
  }
}
