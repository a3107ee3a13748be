package dev.tributary.service.engine;

import dev.tributary.table.stream.SourceRow;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Where a {@link Source} hands the input of a batch: the engine passes one that feeds the
 * processor. A source of encoded messages hands records, which the processor parses with the
 * pipeline's {@code format}; a source of typed rows (a Delta table) hands rows in its schema.
 */
public interface SourceInput {
  /** One record of the batch, in offset order within its partition. */
  void record(ConsumerRecord<byte[], byte[]> record) throws Exception;

  /**
   * One row of the batch, in the source's schema, with its provenance ({@link
   * SourceRow#provenance()}), in the order the source reads its files.
   */
  void row(SourceRow row) throws Exception;

  /**
   * The records or rows that follow belong to input {@code input} of the pipeline: 0 is the main
   * input, 1 the second input of a stream-stream join ({@link CompositeSource}, which calls it
   * before each input's whole range, 0 then 1). A single-input source never calls it. Default:
   * nothing to do.
   */
  default void beginInput(int input) throws Exception {}
}
