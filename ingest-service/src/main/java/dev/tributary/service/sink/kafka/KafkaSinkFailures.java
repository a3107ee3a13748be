package dev.tributary.service.sink.kafka;

import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.service.engine.PartitionMovedException;
import dev.tributary.service.sink.SinkRefusedException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The Kafka sink's failures translated once, where they leave the Kafka clients: fencing (another
 * run of the checkpoint took the transactional id over) is a {@link PartitionMovedException}, which
 * ends this run; an authorization refusal of the sink topic, the transactional id, the marker group
 * or the cluster is a {@link SinkRefusedException}, permanent (the pipeline ends FAILED naming the
 * resource and the ACL to grant, docs/OPERATIONS.md "The Kafka sink"), since retrying cannot grant
 * an ACL; anything else is left as it is (transient unless something else says).
 *
 * @param pipelineId the pipeline, named by every message
 * @param spec the sink
 * @param transactionalId the producer's transactional id
 * @param markerGroup the consumer group of the batch markers
 */
public record KafkaSinkFailures(
    String pipelineId, KafkaSinkSpec spec, String transactionalId, String markerGroup) {

  /**
   * The translation of {@code failure} (searched through its causes), or null when it is none of
   * the kinds above.
   *
   * @param batch the batch concerned, -1 for none (at start)
   */
  public RuntimeException translate(Throwable failure, long batch) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
        return new PartitionMovedException(
            KafkaSinkMessages.fenced(pipelineId, spec, batch, transactionalId), failure);
      }
      if (t instanceof TransactionalIdAuthorizationException) {
        return new SinkRefusedException(
            KafkaSinkMessages.notAuthorized(pipelineId, spec, transactionalId), failure);
      }
      if (t instanceof TopicAuthorizationException || isUntypedTopicRefusal(t)) {
        return new SinkRefusedException(
            KafkaSinkMessages.topicNotAuthorized(pipelineId, spec), failure);
      }
      if (t instanceof GroupAuthorizationException) {
        return new SinkRefusedException(
            KafkaSinkMessages.groupNotAuthorized(pipelineId, spec, markerGroup), failure);
      }
      if (t instanceof ClusterAuthorizationException) {
        return new SinkRefusedException(
            KafkaSinkMessages.clusterNotAuthorized(pipelineId, spec), failure);
      }
    }
    return null;
  }

  /**
   * The producer reports a topic refused while committing the batch marker ({@code
   * TxnOffsetCommit}, which needs Read on the topic) as a bare {@link KafkaException} whose message
   * ends with the broker's error text, not as a {@link TopicAuthorizationException}.
   */
  private static boolean isUntypedTopicRefusal(Throwable t) {
    return t.getClass() == KafkaException.class
        && t.getMessage() != null
        && t.getMessage().endsWith(Errors.TOPIC_AUTHORIZATION_FAILED.message());
  }

  /** {@link #translate}, or {@code failure} itself when it is none of the kinds. */
  public RuntimeException translateOrKeep(RuntimeException failure, long batch) {
    RuntimeException translated = translate(failure, batch);
    return translated == null ? failure : translated;
  }
}
