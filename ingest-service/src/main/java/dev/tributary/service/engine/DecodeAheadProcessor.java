package dev.tributary.service.engine;

import dev.tributary.service.parse.DecodeAhead;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.table.stream.SourceRow;
import java.io.IOException;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A stateless processor whose Kafka records are decoded a chunk ahead on a worker thread ({@link
 * DecodeAhead}, {@value #CHUNK} records at a time) while the engine's thread reads the next records
 * and runs the steps after decoding on the chunk before: on two cores this takes the JSON decoding
 * (about half of a bronze pipeline's engine thread, issue 27) off the critical path.
 *
 * <p>Every step after decoding ({@link StatelessProcessor#processDecoded}: Kafka columns,
 * transforms, expectations, checks, joins, the outputs and the quarantine) runs on the caller's
 * thread, in read order, with each record paired with its own decoding: the outputs are exactly
 * those of {@link StatelessProcessor#process} record by record, rows in the same order, a failure
 * quarantined or thrown at its own record after every earlier one was applied. What changes is
 * when: a record's rows are written up to two chunks after it was handed over, the last ones in
 * {@link #endBatch}. So this is for an engine that ends every batch before it reads the outputs
 * ({@link BatchBody}), not for a caller that reads a record's rows as soon as {@link #process}
 * returns (a quarantine replay). A batch abandoned before {@link #endBatch} (a stop, a failure)
 * leaves nothing behind: the next {@link #beginBatch} drops what it decoded.
 */
final class DecodeAheadProcessor implements RecordProcessor {
  /** Records decoded together: as the stateful pipelines' ({@code StatefulProcessor}). */
  static final int CHUNK = 1024;

  private final StatelessProcessor steps;
  private final String threadName;
  private final int chunkSize;

  /** Created with the first batch (a processor never run starts no thread). */
  private DecodeAhead<ConsumerRecord<byte[], byte[]>, ParseResult> ahead;

  DecodeAheadProcessor(StatelessProcessor steps, String threadName) {
    this(steps, threadName, CHUNK);
  }

  /** With chunks of {@code chunkSize} records: tests cross chunk boundaries with few records. */
  DecodeAheadProcessor(StatelessProcessor steps, String threadName, int chunkSize) {
    this.steps = steps;
    this.threadName = threadName;
    this.chunkSize = chunkSize;
  }

  @Override
  public Map<String, String> planBatch(long batchId) throws IOException {
    return steps.planBatch(batchId);
  }

  @Override
  public void beginBatch(BatchContext batch) throws IOException {
    steps.beginBatch(batch);
    if (ahead == null) {
      ahead = new DecodeAhead<>(chunkSize, steps::decode, threadName);
    }
    ahead.begin(); // drops what an abandoned batch left
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws Exception {
    if (ahead == null) {
      throw new IllegalStateException(
          "Kafka record "
              + record.topic()
              + "/"
              + record.partition()
              + "@"
              + record.offset()
              + " reached the processor ("
              + threadName
              + ") before a batch began");
    }
    DecodeAhead.Done decoded = ahead.add(record);
    if (decoded != null) {
      apply(decoded, outputs);
    }
  }

  /** The steps after decoding, for a chunk of records in read order. */
  private void apply(DecodeAhead.Done chunk, BatchOutputs outputs) throws IOException {
    for (int i = 0; i < chunk.size(); i++) {
      ConsumerRecord<byte[], byte[]> record = chunk.input(i);
      ParseResult result = chunk.result(i); // throws what decoding this record threw
      steps.processDecoded(record, result, outputs);
    }
  }

  /** Applies the records still being decoded, so that what comes next sees them first. */
  private void applyDecoded(BatchOutputs outputs) throws IOException {
    if (ahead != null) {
      for (DecodeAhead.Done chunk : ahead.drain()) {
        apply(chunk, outputs);
      }
    }
  }

  @Override
  public void processRow(SourceRow row, BatchOutputs outputs) throws Exception {
    applyDecoded(outputs);
    steps.processRow(row, outputs);
  }

  @Override
  public void beginInput(int input) throws Exception {
    steps.beginInput(input);
  }

  @Override
  public void endBatch(BatchOutputs outputs) throws Exception {
    applyDecoded(outputs);
    steps.endBatch(outputs);
  }

  @Override
  public OptionalLong nextWatermarkMicros() {
    return steps.nextWatermarkMicros();
  }

  @Override
  public void commit(long batchId) throws IOException {
    steps.commit(batchId);
  }

  @Override
  public boolean dependsOnRecordOrder() {
    return steps.dependsOnRecordOrder();
  }

  @Override
  public boolean wantsNoDataBatch() {
    return steps.wantsNoDataBatch();
  }

  @Override
  public void restored(OptionalLong appliedWatermarkMicros, OptionalLong nextWatermarkMicros) {
    steps.restored(appliedWatermarkMicros, nextWatermarkMicros);
  }

  @Override
  public Map<String, String> commitExtras() {
    return steps.commitExtras();
  }

  @Override
  public void restoreCommitted(Map<String, String> extras) {
    steps.restoreCommitted(extras);
  }

  @Override
  public Map<String, Long> stateMetrics() {
    return steps.stateMetrics();
  }

  @Override
  public void close() {
    try {
      if (ahead != null) {
        ahead.close();
      }
    } finally {
      steps.close();
    }
  }
}
