package dev.tributary.service.engine;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Where a {@link Source} hands the input of a batch: the engine passes one that feeds the
 * processor. A source of encoded messages hands records, which the processor parses with the
 * pipeline's {@code format}.
 */
public interface SourceInput {
  /** One record of the batch, in offset order within its partition. */
  void record(ConsumerRecord<byte[], byte[]> record) throws Exception;
}
