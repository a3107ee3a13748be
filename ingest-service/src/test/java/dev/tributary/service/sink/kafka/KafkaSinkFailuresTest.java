package dev.tributary.service.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.service.engine.PartitionMovedException;
import dev.tributary.service.sink.SinkRefusedException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.junit.jupiter.api.Test;

/** How the Kafka sink sorts what the Kafka clients throw: fenced, refused for good, or neither. */
class KafkaSinkFailuresTest {
  private static final KafkaSinkSpec SPEC =
      new KafkaSinkSpec(
          "broker:9092",
          "clean-events-out",
          Optional.empty(),
          KafkaSinkSpec.Value.JSON,
          KafkaSinkSpec.Delivery.EXACTLY_ONCE,
          false,
          Map.of());
  private static final String TXN_ID = KafkaTopicSink.transactionalId("clean-events@c1", SPEC);
  private static final String GROUP = KafkaTopicSink.markerGroup("clean-events@c1", SPEC);
  private static final KafkaSinkFailures FAILURES =
      new KafkaSinkFailures("clean-events", SPEC, TXN_ID, GROUP);

  @Test
  void aRefusedTopicNamesItAndTheAclToGrant() {
    RuntimeException e =
        FAILURES.translate(new TopicAuthorizationException(Set.of("clean-events-out")), 4);

    assertThat(e)
        .isInstanceOf(SinkRefusedException.class)
        .hasMessage(
            "Pipeline clean-events: the brokers broker:9092 refuse the sink topic clean-events-out"
                + " to this principal (not authorized). Grant it Write and Describe on the topic,"
                + " and Read with delivery: exactly-once (the batch marker is an offset committed"
                + " on it) (kafka-acls.sh --add --allow-principal User:<principal> --operation"
                + " Write --operation Describe --operation Read --topic clean-events-out;"
                + " docs/OPERATIONS.md, \"The Kafka sink\")")
        .hasCauseInstanceOf(TopicAuthorizationException.class);
    // committing the marker without Read on the topic: the producer's untyped report
    assertThat(
            FAILURES.translate(
                new KafkaException(
                    "Unexpected error in TxnOffsetCommitResponse: Topic authorization failed."),
                4))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("refuse the sink topic clean-events-out");
    assertThat(FAILURES.translate(new KafkaException("Unexpected error: something else"), 4))
        .isNull();
  }

  @Test
  void aRefusedMarkerGroupNamesItAndThePrefixedAcl() {
    // as the admin client reports it: wrapped in an ExecutionException
    RuntimeException e =
        FAILURES.translate(
            new ExecutionException(new GroupAuthorizationException("no", GROUP)), -1);

    assertThat(e)
        .isInstanceOf(SinkRefusedException.class)
        .hasMessage(
            "Pipeline clean-events: the brokers broker:9092 refuse the consumer group "
                + GROUP
                + ", where the sink records which batches topic clean-events-out holds (not"
                + " authorized). Grant the principal Read and Describe on it, by prefix"
                + " (kafka-acls.sh --add --allow-principal User:<principal> --operation Read"
                + " --operation Describe --group tributary-clean-events --resource-pattern-type"
                + " prefixed; docs/OPERATIONS.md, \"The Kafka sink\"), or use"
                + " sink.kafka.delivery: at-least-once");
  }

  @Test
  void aRefusedTransactionalIdOrClusterOperationIsRefusedToo() {
    assertThat(
            FAILURES.translate(
                new KafkaException("commit", new TransactionalIdAuthorizationException("no")), 2))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("refuse the transactional id " + TXN_ID)
        .hasMessageContaining("Grant the principal Write and Describe on it");
    assertThat(FAILURES.translate(new ClusterAuthorizationException("no"), 2))
        .isInstanceOf(SinkRefusedException.class)
        .hasMessageContaining("need IdempotentWrite on the cluster")
        .hasMessageContaining("--operation IdempotentWrite --cluster");
  }

  @Test
  void fencingEndsTheRunAndOtherFailuresAreLeftAlone() {
    assertThat(FAILURES.translate(new ProducerFencedException("epoch"), 7))
        .isInstanceOf(PartitionMovedException.class)
        .hasMessageContaining("batch 7 to topic clean-events-out was fenced off")
        .hasMessageContaining(TXN_ID);
    assertThat(FAILURES.translate(new TimeoutException("no answer"), 7)).isNull();
    assertThat(FAILURES.translate(new CoordinatorNotAvailableException("moving"), 7)).isNull();
    TimeoutException timeout = new TimeoutException("no answer");
    assertThat(FAILURES.translateOrKeep(timeout, 7)).isSameAs(timeout);
  }
}
