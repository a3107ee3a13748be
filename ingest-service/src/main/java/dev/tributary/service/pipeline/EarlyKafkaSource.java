package dev.tributary.service.pipeline;

import dev.tributary.config.Assignment;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.source.KafkaSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A run's Kafka source, created on a thread of its own while {@link PipelineRun#open} takes the
 * checkpoint's lease and opens the checkpoint and tables (docs/DESIGN.md, "Start-up"): the thread
 * builds the consumer (Kafka's client classes, its configuration) and then connects, asking the
 * broker for the topics' partitions and latest offsets once, so that the engine's first calls
 * (available-now's bound, the first plan) find the connection and metadata ready. Only read-only
 * metadata calls are made and their answers are dropped: the engine asks again and plans from the
 * checkpoint as before, so nothing the batches read or commit depends on this thread. The consumer
 * is handed over only after the thread ends ({@link #await}), so it is never used by two threads at
 * once.
 *
 * <p>Only for the plain case: a pipeline that reads one or more Kafka topics in exclusive
 * assignment, with no Delta source and no stream join.
 */
final class EarlyKafkaSource {
  private final CompletableFuture<KafkaSource> created;

  /** Set when the metadata calls failed: {@link #await} throws it, as the engine would have. */
  private volatile RuntimeException metadataFailure;

  private EarlyKafkaSource(CompletableFuture<KafkaSource> created) {
    this.created = created;
  }

  /** Starts creating the source of {@code spec} if it is the plain case; empty otherwise. */
  static Optional<EarlyKafkaSource> start(PipelineSpec spec, TriggerSpec trigger) {
    boolean plain =
        spec.kafkaSource().map(k -> k.assignment() != Assignment.GROUP).orElse(false)
            && spec.deltaSource().isEmpty()
            && spec.streamJoin().isEmpty();
    if (!plain) {
      return Optional.empty();
    }
    var settings = PipelineFactory.sourceSettings(spec, trigger instanceof TriggerSpec.Once);
    CompletableFuture<KafkaSource> created = new CompletableFuture<>();
    EarlyKafkaSource early = new EarlyKafkaSource(created);
    Thread thread =
        new Thread(
            () -> {
              KafkaSource source;
              try {
                source = new KafkaSource(settings);
                StartupTrace.mark("early Kafka source: consumer created");
              } catch (RuntimeException | Error e) {
                created.completeExceptionally(e);
                return;
              }
              try {
                var partitions = source.partitions();
                StartupTrace.mark("early Kafka source: partitions known");
                source.latestOffsets(partitions);
                StartupTrace.mark("early Kafka source: latest offsets known");
              } catch (RuntimeException e) {
                // the engine's first call would have failed the same way: thrown by await
                early.metadataFailure = e;
              }
              created.complete(source);
            },
            "tributary-kafka-connect-" + spec.id());
    thread.setDaemon(true);
    thread.start();
    return Optional.of(early);
  }

  /**
   * The source, once the thread is done with it; throws what creating it or the metadata calls
   * threw (closing the source first in the latter case).
   */
  KafkaSource await() {
    KafkaSource source;
    try {
      source = created.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
    RuntimeException failure = metadataFailure;
    if (failure != null) {
      source.close();
      throw failure;
    }
    return source;
  }

  /** When the open fails before taking the source: closes it once the thread has created it. */
  void closeWhenCreated() {
    created.thenAccept(KafkaSource::close);
  }
}
