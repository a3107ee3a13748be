package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.CheckpointInUseException;
import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.ConcurrentPipelineException;
import dev.tributary.checkpoint.Lease;
import dev.tributary.checkpoint.LeaseLostException;
import dev.tributary.checkpoint.LeaseOwner;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.config.RegistrySpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.engine.BatchFailedException;
import dev.tributary.service.parse.debezium.TruncateEventException;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.registry.SchemaRegistryClient;
import dev.tributary.service.registry.SchemaRegistryUnavailableException;
import dev.tributary.service.sink.kafka.KafkaSinkFailures;
import dev.tributary.service.sink.kafka.KafkaTopicSink;
import dev.tributary.service.source.DataLossException;
import dev.tributary.table.CommitConflictException;
import dev.tributary.table.CommitFailedException;
import dev.tributary.table.TableException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.junit.jupiter.api.Test;

class FailuresTest {

  @Test
  void permanentKindsAreFoundAnywhereInTheCauseChain() {
    assertThat(Failures.permanent(new CheckpointMismatchException("changed", List.of("transform"))))
        .isTrue();
    assertThat(Failures.permanent(new ConcurrentPipelineException("another process"))).isTrue();
    assertThat(Failures.permanent(new PipelineDefinitionException("p", List.of("bad")))).isTrue();
    assertThat(
            Failures.permanent(
                new IllegalStateException(
                    "wrapped", new DataLossException("p", new TopicPartition("t", 0), 5, 10))))
        .isTrue();
  }

  @Test
  void aBatchFailureIsAsPermanentAsItsCauseAndDescribedWithIt() {
    var ranges = Map.of(new SourcePartition("t", 0), new OffsetRange(5, 10));
    var loss =
        new BatchFailedException(
            "p", 2, ranges, new DataLossException("p", new TopicPartition("t", 0), 5, 10));
    assertThat(Failures.permanent(loss)).isTrue();
    // a Debezium truncate with on-truncate: fail: every replay would meet it again
    assertThat(
            Failures.permanent(
                new BatchFailedException(
                    "p", 2, ranges, new TruncateEventException("p: t/0 offset 7 is a truncate"))))
        .isTrue();
    var storage = new BatchFailedException("p", 2, ranges, new IOException("disk full"));
    assertThat(Failures.permanent(storage)).isFalse();
    assertThat(Failures.describe(storage, Secrets.NONE))
        .isEqualTo(
            "Pipeline p: batch 2 (t/0 offsets [5, 10)) failed; it is replayed"
                + " with the same offsets at the next start (a table that already committed it skips it). (caused by: disk full)");
  }

  @Test
  void aTableErrorIsPermanentUnlessATryLaterMaySucceed() {
    var ranges = Map.of(new SourcePartition("t", 0), new OffsetRange(5, 10));
    var vacuumed =
        new BatchFailedException(
            "p",
            2,
            ranges,
            new TableException("Data file 'a.parquet' of the Delta source is gone"));
    assertThat(Failures.permanent(vacuumed)).as("the table must be repaired").isTrue();
    assertThat(
            Failures.permanent(
                new CommitFailedException("lost every race", false, new IOException("503"))))
        .as("retryable: the store was busy")
        .isFalse();
    assertThat(Failures.permanent(new CommitConflictException("a concurrent schema change")))
        .as("the next attempt redoes its work on the new version")
        .isFalse();
  }

  @Test
  void aCheckpointLeaseHeldOrLostIsWaitedForNotFailed() {
    // serve retries until the other owner stops or its lease expires (docs/DESIGN.md, "One owner
    // per checkpoint"): a rolling update or a standby must not end FAILED
    Lease held =
        new Lease(
            0,
            "p",
            new LeaseOwner(
                "id", "host-a", 42, Optional.empty(), Optional.empty(), Optional.empty()),
            Instant.EPOCH,
            Instant.EPOCH,
            Duration.ofSeconds(30),
            Optional.empty(),
            OptionalLong.empty());
    assertThat(Failures.permanent(new CheckpointInUseException("in use by host-a", held)))
        .isFalse();
    var ranges = Map.of(new SourcePartition("t", 0), new OffsetRange(5, 10));
    assertThat(
            Failures.permanent(
                new BatchFailedException("p", 2, ranges, new LeaseLostException("lost"))))
        .isFalse();
  }

  @Test
  void aKafkaSinkRefusedByAnAclIsPermanentAndOneWhoseBrokersAreAwayIsNot() {
    var ranges = Map.of(new SourcePartition("t", 0), new OffsetRange(5, 10));
    KafkaSinkSpec sink =
        new KafkaSinkSpec(
            "b:9092",
            "out",
            Optional.empty(),
            KafkaSinkSpec.Value.JSON,
            KafkaSinkSpec.Delivery.EXACTLY_ONCE,
            false,
            Map.of());
    KafkaSinkFailures failures =
        new KafkaSinkFailures(
            "p",
            sink,
            KafkaTopicSink.transactionalId("p", sink),
            KafkaTopicSink.markerGroup("p", sink));
    for (RuntimeException refusal :
        List.of(
            new TopicAuthorizationException(Set.of("out")),
            new GroupAuthorizationException("no", "tributary-p-sink-out"),
            new TransactionalIdAuthorizationException("no"),
            new ClusterAuthorizationException("no"))) {
      var failed = new BatchFailedException("p", 2, ranges, failures.translateOrKeep(refusal, 2));
      assertThat(Failures.permanent(failed)).as(refusal.getClass().getSimpleName()).isTrue();
      assertThat(Failures.describe(failed, Secrets.NONE)).contains("not authorized");
    }
    var away =
        new BatchFailedException(
            "p",
            2,
            ranges,
            failures.translateOrKeep(
                new org.apache.kafka.common.errors.TimeoutException("no answer"), 2));
    assertThat(Failures.permanent(away)).as("brokers away: retried, DEGRADED").isFalse();
    // an Avro sink's registry that does not answer (nothing listens on port 1): retried
    SchemaRegistryClient nowhere =
        new SchemaRegistryClient(
            "p",
            RegistrySpec.at("http://127.0.0.1:1"),
            Secrets.NONE,
            SchemaRegistryClient.DEFAULT_RETRY.withMaxAttempts(1),
            "sink.kafka.registry");
    assertThatThrownBy(() -> nowhere.register("out-value", "\"string\""))
        .isInstanceOf(SchemaRegistryUnavailableException.class)
        .satisfies(e -> assertThat(Failures.permanent(e)).isFalse());
  }

  @Test
  void everythingElseIsTransient() {
    assertThat(Failures.permanent(new IOException("connection refused"))).isFalse();
    assertThat(Failures.permanent(new IllegalStateException("x", new TimeoutException())))
        .isFalse();
  }

  @Test
  void describesTheChainOnceEach() {
    IOException root = new IOException("connection refused");
    assertThat(
            Failures.describe(new IllegalStateException("cannot read batch 3", root), Secrets.NONE))
        .isEqualTo("cannot read batch 3 (caused by: connection refused)");
    assertThat(Failures.describe(new IllegalStateException(root), Secrets.NONE))
        .isEqualTo("java.io.IOException: connection refused");
    assertThat(Failures.describe(new NullPointerException(), Secrets.NONE))
        .isEqualTo("NullPointerException");
  }

  @Test
  void masksThePipelinesSecretsInTheDescription() {
    IOException root = new IOException("Unable to connect to http://minio-secret-host:9000");
    assertThat(
            Failures.describe(
                new IllegalStateException("cannot write batch 3", root),
                Secrets.of(List.of("minio-secret-host"))))
        .isEqualTo("cannot write batch 3 (caused by: Unable to connect to http://******:9000)");
  }
}
