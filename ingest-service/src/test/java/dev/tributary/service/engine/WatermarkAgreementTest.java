package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.TriggerSpec;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.Snapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agreed-watermark hook of the exclusive engine (docs/DESIGN.md, "Stateful pipelines in group
 * mode"), with a fake agreement (our own interface), an in-memory source, processor and sink: the
 * offsets entry gets the agreed watermark, a batch without data runs when it moved past the applied
 * one (and only then), it never goes back, and the commits entry keeps this sub-pipeline's own one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatermarkAgreementTest {
  private static final SourcePartition P = new SourcePartition("t", 0);
  private final Checkpoint checkpoint = open();
  private final ListSource source = new ListSource();
  private final MaxProcessor processor = new MaxProcessor();
  private OptionalLong agreed = OptionalLong.empty();
  private final List<OptionalLong> asked = new ArrayList<>();

  private static Checkpoint open() {
    try {
      return Checkpoint.open(new InMemoryObjectStore(), "p", Map.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private TriggerLoop engine(WatermarkAgreement agreement) {
    MemorySink sink = new MemorySink();
    return TriggerLoop.Batches.writeAheadLog(
        new BatchBody.Settings(
            "p", source, processor, new ProgressLog(10), Clock.systemUTC(), Optional.empty()),
        checkpoint,
        new TableTxns("p", Optional.of("c")),
        Map.of(),
        new WriteAheadLog.Tables(sink, new MemorySink(), Optional.empty()),
        agreement == null ? WatermarkPolicy.OWN : new WatermarkPolicy.Agreed(agreement));
  }

  private final WatermarkAgreement fake =
      own -> {
        asked.add(own);
        return agreed;
      };

  @Test
  void eachBatchAppliesTheAgreedWatermarkAndCommitsItsOwnWhichNeverGoesBack() throws Exception {
    source.events.addAll(List.of(100L, 200L));
    engine(fake).run(new TriggerSpec.Once());
    assertThat(offsets(0).watermarkMicros()).isEmpty(); // nothing agreed yet
    assertThat(commit(0).nextWatermarkMicros()).hasValue(200);

    agreed = OptionalLong.of(150);
    engine(fake).run(new TriggerSpec.Once());
    // no input, but the agreement moved past what batch 0 applied: a batch without data applies it
    assertThat(offsets(1).ranges()).containsExactly(Map.entry(P, new OffsetRange(2, 2)));
    assertThat(offsets(1).watermarkMicros()).hasValue(150);
    assertThat(asked)
        .last()
        .isEqualTo(OptionalLong.of(200)); // own: what the latest commits entry says
    // the processor computes max(applied 150, no row) = 150; the commits entry keeps its own 200
    assertThat(commit(1).nextWatermarkMicros()).hasValue(200);
    assertThat(checkpoint.latestOffsets().orElseThrow().batchId())
        .isEqualTo(1); // one batch: no endless no-data batches
    // idleness is judged by input (watermark.idle-timeout): the batch without data carries the
    // time of the last batch with input on, rather than its own commit time
    assertThat(commit(0).extras()).containsKey(WriteAheadLog.LAST_INPUT_AT);
    assertThat(commit(1).extras().get(WriteAheadLog.LAST_INPUT_AT))
        .isEqualTo(commit(0).extras().get(WriteAheadLog.LAST_INPUT_AT))
        .isEqualTo(commit(0).committedAt().toString());

    engine(fake).run(new TriggerSpec.Once());
    assertThat(checkpoint.latestOffsets().orElseThrow().batchId())
        .isEqualTo(1); // agreed == applied: nothing to do
  }

  @Test
  void anAgreementBelowTheAppliedWatermarkKeepsTheAppliedOne() throws Exception {
    source.events.add(300L);
    agreed = OptionalLong.of(150);
    engine(fake).run(new TriggerSpec.Once()); // batch 0 (first): applies 150
    assertThat(offsets(0).watermarkMicros()).hasValue(150);

    agreed = OptionalLong.of(100);
    engine(fake).run(new TriggerSpec.Once());
    assertThat(checkpoint.latestOffsets().orElseThrow().batchId())
        .isZero(); // no batch for a lower agreement

    agreed = OptionalLong.empty();
    source.events.add(400L);
    engine(fake).run(new TriggerSpec.Once());
    assertThat(offsets(1).watermarkMicros()).hasValue(150);
    assertThat(offsets(1).lateWatermarkMicros()).hasValue(150);
    assertThat(processor.applied).containsExactly(OptionalLong.of(150), OptionalLong.of(150));
  }

  @Test
  void withoutAnAgreementTheWatermarkIsTheEnginesOwn() throws Exception {
    source.events.addAll(List.of(100L, 200L));
    engine(null).run(new TriggerSpec.Once());
    // the processor asks for a no-data batch (200 > 0): the Once run goes on until it applied 200
    assertThat(offsets(1).watermarkMicros()).hasValue(200);
    assertThat(asked).isEmpty();
    assertThat(commit(0).extras()).doesNotContainKey(WriteAheadLog.LAST_INPUT_AT);
  }

  private OffsetsEntry offsets(long batch) throws Exception {
    return checkpoint.offsets(batch).orElseThrow();
  }

  private CommitEntry commit(long batch) throws Exception {
    return checkpoint.commit(batch).orElseThrow();
  }

  /** Partition t/0 whose record at offset i carries event time events[i]. */
  private static final class ListSource implements Source {
    final List<Long> events = new ArrayList<>();

    @Override
    public void boundToAvailableNow() {}

    @Override
    public PlannedBatch plan(BatchRange previous, boolean firstBatch) {
      long start = previous.endOffsets().getOrDefault(P, 0L);
      long end = events.size();
      return new PlannedBatch(
          new BatchRange(Map.of(P, new OffsetRange(start, end)), Map.of()), end > start, List.of());
    }

    @Override
    public List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input)
        throws Exception {
      OffsetRange r = range.offsets().get(P);
      for (long o = r.start(); o < r.end(); o++) {
        input.record(
            new ConsumerRecord<>(
                P.topic(),
                0,
                o,
                null,
                Long.toString(events.get((int) o)).getBytes(StandardCharsets.UTF_8)));
      }
      return List.of();
    }

    @Override
    public Map<String, String> commitInfo(BatchRange range) {
      return Map.of();
    }

    @Override
    public String describe(BatchRange range) {
      return range.toString();
    }

    @Override
    public void close() {}
  }

  /**
   * The watermark tracker's rule with no delay: next = max(applied, the batch's max event time).
   */
  private static final class MaxProcessor implements RecordProcessor {
    final List<OptionalLong> applied = new ArrayList<>();
    long evict;
    long next;

    @Override
    public void beginBatch(BatchContext batch) {
      applied.add(batch.watermarkMicros());
      evict = batch.watermarkMicros().orElse(0);
      next = evict;
    }

    @Override
    public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs) {
      next = Math.max(next, Long.parseLong(new String(record.value(), StandardCharsets.UTF_8)));
    }

    @Override
    public void endBatch(BatchOutputs outputs) {}

    @Override
    public OptionalLong nextWatermarkMicros() {
      return OptionalLong.of(next);
    }

    @Override
    public boolean wantsNoDataBatch() {
      return next > evict;
    }
  }

  private static final class MemorySink implements TableSink {
    @Override
    public String location() {
      return "memory";
    }

    @Override
    public CommitCounters commitCounters() {
      return CommitCounters.ZERO;
    }

    @Override
    public Snapshot snapshot() {
      throw new UnsupportedOperationException();
    }

    @Override
    public BatchWriter begin(BatchTag tag) {
      return new InMemoryBatchWriter();
    }
  }
}
