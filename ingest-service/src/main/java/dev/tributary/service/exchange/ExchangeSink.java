package dev.tributary.service.exchange;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.service.engine.PartitionMovedException;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.service.stateful.ExchangeFront;
import dev.tributary.service.stateful.ExchangeRecords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;

/**
 * The "sink" of a stage-1 batch: one Kafka transaction on the repartition topic. Rows are sent as
 * they come ({@link ExchangeRecords#row}); the commit sends one progress record per repartition
 * partition ({@link ExchangeRecords.Progress}: where the batch read its source partitions to, the
 * maximum event time of each one's rows, and every source partition's latest offset), checks
 * (without a poll in between) that every partition of the batch is still assigned here, adds the
 * range ends as the group's offsets with the consumer's group metadata, and commits the
 * transaction. Closing it uncommitted aborts the transaction.
 *
 * <p>The fencing signals Kafka gives — a revoked partition, a commit the group coordinator refused
 * for an old generation, a fenced producer — become one {@link PartitionMovedException} here, where
 * they are detected.
 */
final class ExchangeSink implements TableSink.BatchWriter {
  /** Kafka's ways of saying that this member or producer no longer owns the batch. */
  private static final List<Class<? extends Throwable>> FENCING =
      List.of(
          CommitFailedException.class,
          ProducerFencedException.class,
          InvalidProducerEpochException.class,
          FencedInstanceIdException.class,
          RebalanceInProgressException.class,
          IllegalGenerationException.class,
          UnknownMemberIdException.class);

  private final ExchangeProgress progress;
  private final ExchangeRecords records;
  private final KafkaSource source;
  private final Map<TopicPartition, OffsetRange> ranges;
  private final Map<TopicPartition, Long> sourceLatest;
  private final ExchangeFront front;
  private final String topic;
  private final SendErrors sendErrors = new SendErrors();
  private final Producer<byte[], byte[]> producer;
  private long rows;
  private boolean committed;
  private boolean fenced;

  ExchangeSink(
      ExchangeProgress progress,
      ExchangeRecords records,
      KafkaSource source,
      Map<TopicPartition, OffsetRange> ranges,
      Map<TopicPartition, Long> sourceLatest,
      ExchangeFront front) {
    this.progress = progress;
    this.records = records;
    this.source = source;
    this.ranges = Map.copyOf(ranges);
    this.sourceLatest = Map.copyOf(sourceLatest);
    this.front = front;
    this.topic = ExchangeRecords.topic(progress.pipelineId());
    Producer<byte[], byte[]> p = progress.producer();
    try {
      p.beginTransaction();
    } catch (RuntimeException e) {
      progress.discardProducer(); // an error state a previous batch left: the next gets a new one
      throw fencing(e);
    }
    this.producer = p;
  }

  @Override
  public boolean alreadyCommitted() {
    return false;
  }

  @Override
  public void write(Object[] row) {
    send(records.row(row));
    rows++;
  }

  @Override
  public long rows() {
    return rows;
  }

  /**
   * Sends the progress records and commits the transaction with the range ends as the group's
   * offsets.
   *
   * @return -1: a topic has no table version
   * @throws PartitionMovedException if this instance was fenced off (nothing of the batch visible)
   */
  @Override
  public long commit(Map<String, String> commitInfo) {
    for (ExchangeRecords.Outgoing progress :
        records.progress(progress(ranges, sourceLatest, front))) {
      send(progress);
    }
    // No poll from here to sendOffsetsToTransaction: the generation sent is the one that owns
    // these.
    source.group().checkStillOwned(ranges.keySet());
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    ranges.forEach((tp, r) -> offsets.put(tp, new OffsetAndMetadata(r.end())));
    try {
      producer.sendOffsetsToTransaction(offsets, source.group().groupMetadata());
      producer.commitTransaction();
    } catch (RuntimeException e) {
      sendErrors.addTo(e);
      throw fencing(e);
    }
    committed = true;
    return -1;
  }

  /**
   * The progress record of a batch that read {@code ranges} (its source partitions, by where the
   * batch read them) when the source partitions' latest offsets were {@code sourceLatest}, its rows
   * having gone through {@code front}.
   */
  static ExchangeRecords.Progress progress(
      Map<TopicPartition, OffsetRange> ranges,
      Map<TopicPartition, Long> sourceLatest,
      ExchangeFront front) {
    List<ExchangeRecords.SourcePosition> positions = new ArrayList<>();
    sourceLatest.forEach(
        (tp, latest) -> {
          OffsetRange r = ranges.get(tp);
          positions.add(
              new ExchangeRecords.SourcePosition(
                  tp.topic(),
                  tp.partition(),
                  r == null ? -1 : r.end(),
                  r != null && !r.isEmpty(),
                  latest,
                  r == null ? OptionalLong.empty() : front.maxEventTimeMicros(tp)));
        });
    return new ExchangeRecords.Progress(positions);
  }

  private void send(ExchangeRecords.Outgoing out) {
    try {
      producer.send(
          new ProducerRecord<>(topic, out.partition(), out.key(), out.value()), sendErrors);
    } catch (RuntimeException e) {
      throw fencing(e);
    }
  }

  /**
   * A Kafka fencing signal as a {@link PartitionMovedException}; any other failure as it is.
   * Remembers a fenced producer, which can only be closed, not aborted.
   */
  private RuntimeException fencing(RuntimeException e) {
    fenced |= ExchangeProgress.producerFenced(e);
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (Class<? extends Throwable> kind : FENCING) {
        if (kind.isInstance(t)) {
          return new PartitionMovedException(
              "Pipeline "
                  + progress.pipelineId()
                  + ": stage-1 batch over "
                  + ranges.keySet()
                  + " fenced off: this instance no longer owns its partitions ("
                  + t.getClass().getSimpleName()
                  + ": "
                  + t.getMessage()
                  + ")",
              e);
        }
      }
    }
    return e;
  }

  /** Aborts the transaction unless it committed. */
  @Override
  public void close() {
    if (!committed) {
      progress.abort(fenced);
    }
  }

  /**
   * The first error a send reported (surfacing as the commit's failure), added to the batch's
   * failure.
   */
  private static final class SendErrors implements Callback {
    private volatile Exception first;

    @Override
    public void onCompletion(RecordMetadata metadata, Exception error) {
      if (error != null && first == null) {
        first = error;
      }
    }

    void addTo(Throwable failure) {
      Exception e = first;
      if (e != null && e != failure) {
        failure.addSuppressed(e);
      }
    }
  }
}
