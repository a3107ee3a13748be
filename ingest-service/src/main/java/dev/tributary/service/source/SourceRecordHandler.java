package dev.tributary.service.source;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Receives the records of a batch, in offset order within each partition. */
@FunctionalInterface
public interface SourceRecordHandler {
  void accept(ConsumerRecord<byte[], byte[]> record) throws Exception;
}
