package dev.tributary.service.pipeline;

import dev.tributary.config.Assignment;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.source.KafkaSource;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A run's Kafka source, created on a thread of its own while {@link PipelineRun#open} takes the
 * checkpoint's lease and opens the checkpoint and tables (docs/DESIGN.md, "Start-up"): the thread
 * builds the consumer (Kafka's client classes, its configuration) and then connects, asking the
 * broker for the topics' partitions and latest offsets once, so that the engine's first calls
 * (available-now's bound, the first plan) find the connection and metadata ready. Only read-only
 * metadata calls are made and their answers are dropped: the engine asks again and plans from the
 * checkpoint as before, so nothing the batches read or commit depends on this thread. The consumer
 * is handed over only after the thread ends ({@link #take}), so it is never used by two threads at
 * once.
 *
 * <p>What the early calls meet is dropped, never thrown: the engine's own first calls meet it again
 * and handle it as they always did (a run rides out a broker that is down at start, a missing topic
 * fails naming it). And {@link #take} waits for the thread only up to {@link #WAIT}: a broker that
 * does not answer would otherwise hold the run's start for the client's whole timeout, which a run
 * that never needed the broker to open (a continuous or processing-time trigger) did not do before;
 * the run then creates its own source, as it did without this class, and the early one is closed
 * when its thread ends.
 *
 * <p>Only for the plain case: a pipeline that reads one or more Kafka topics in exclusive
 * assignment, with no Delta source and no stream join.
 */
final class EarlyKafkaSource {
  /** How long the run's start waits for the thread before creating a source of its own. */
  static final Duration WAIT = Duration.ofSeconds(3);

  private final CompletableFuture<KafkaSource> created;

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
                // dropped: the engine's first calls meet it again and handle it as they always did
                StartupTrace.mark("early Kafka source: metadata failed (" + e + ")");
              }
              created.complete(source);
            },
            "tributary-kafka-connect-" + spec.id());
    thread.setDaemon(true);
    thread.start();
    return Optional.of(early);
  }

  /**
   * The source, if the thread is done with it within {@link #WAIT}; empty if creating it failed
   * (the run's own attempt meets the same error) or the thread is still busy (the source is then
   * closed when the thread ends).
   */
  Optional<KafkaSource> take() {
    try {
      return Optional.of(created.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    } catch (ExecutionException e) {
      return Optional.empty();
    } catch (TimeoutException e) {
      closeWhenCreated();
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeWhenCreated();
      return Optional.empty();
    }
  }

  /** When the open fails before taking the source: closes it once the thread has created it. */
  void closeWhenCreated() {
    created.thenAccept(KafkaSource::close);
  }
}
