package dev.tributary.service.engine;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns Kafka records into table rows: parse, transform, and (for stateful pipelines) update
 * state. One instance per pipeline run; called from the engine's thread only.
 */
public interface RecordProcessor {

  /** Called before the first record of a batch. */
  void beginBatch(BatchContext batch);

  /** Handles one record; writes result rows, quarantined records or late events to the batch outputs. */
  void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs) throws Exception;

  /** Called after the last record; a stateful processor emits what the batch finalised. */
  void endBatch(BatchOutputs outputs) throws Exception;

  /** The batch being processed. */
  record BatchContext(long batchId, java.time.Instant batchStartedAt) {}
}
