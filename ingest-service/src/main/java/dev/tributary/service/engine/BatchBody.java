package dev.tributary.service.engine;

import dev.tributary.config.QuarantineLimit;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.stream.SourceRow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of one batch, the same for every {@link ProgressModel} (docs/DESIGN.md, "The run loop").
 * Once the model fixed the batch, its steps are, in this order (the order is the exactly-once
 * argument):
 *
 * <ol>
 *   <li>open the writers (the model: a table already holding the batch writes nothing);
 *   <li>read exactly the batch's range into the processor, the mid-batch crash point between two
 *       inputs; end the batch (a stateful processor emits what it finalised);
 *   <li>fail the batch before any commit if it quarantined more than {@code
 *       quarantine.max-fraction} of its records, so every table stays as it was;
 *   <li>commit the quarantine table, the late-events table, then the sink, each in one atomic
 *       commit with the same commitInfo, a crash point after the quarantine and after the sink;
 *   <li>commit the processor's state (version = batch id), a crash point after it;
 *   <li>the model marks the batch done (the commits log; the consumer group for lag tools);
 *   <li>the progress record.
 * </ol>
 *
 * <p>A failure that is not a stop, a fence or a flooded quarantine is wrapped in a {@link
 * BatchFailedException} naming the pipeline, the batch and its range. Not thread-safe: one thread
 * runs batches one after the other.
 */
public final class BatchBody {
  private static final Logger LOG = LoggerFactory.getLogger(BatchBody.class);

  /**
   * The commitInfo key holding the event-time watermark the batch applied (ISO-8601, UTC), present
   * only for a pipeline with a watermark: a downstream reader may treat the table as complete up to
   * that event time (a later event with an older time is late and never reaches the sink).
   */
  public static final String WATERMARK_INFO = "watermark";

  private final Settings settings;
  private Instant previousBatchStart;

  /**
   * What every batch of a run shares.
   *
   * @param pipelineId names the pipeline in progress records and messages
   * @param source reads each batch's range
   * @param processor turns the batch's input into rows
   * @param progress where each batch's progress record goes
   * @param clock for phase timings and rates
   * @param quarantineLimit {@code quarantine.max-fraction}, if declared
   */
  public record Settings(
      String pipelineId,
      Source source,
      RecordProcessor processor,
      ProgressLog progress,
      Clock clock,
      Optional<QuarantineLimit> quarantineLimit) {
    public Settings {
      Objects.requireNonNull(pipelineId, "pipelineId");
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(processor, "processor");
      Objects.requireNonNull(progress, "progress");
      Objects.requireNonNull(clock, "clock");
      Objects.requireNonNull(quarantineLimit, "quarantineLimit");
    }
  }

  /**
   * What a committed batch did.
   *
   * @param batchId the batch
   * @param nextWatermarkMicros the watermark the processor computed for the next batch
   * @param sinkVersion the sink table version committed, or -1 (already held, or no table)
   * @param progress the batch's progress record
   */
  public record Result(
      long batchId, OptionalLong nextWatermarkMicros, long sinkVersion, BatchProgress progress) {}

  public BatchBody(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /** The settings the batches share. */
  public Settings settings() {
    return settings;
  }

  /**
   * Runs {@code batch} from the opening of its writers to its progress record.
   *
   * @param timer started when the batch was planned; the body marks its phases
   * @return what the batch did; empty for a batch of the continuous trigger that read no record
   *     (nothing committed)
   * @throws PartitionMovedException if another process took the batch's input over (nothing of the
   *     batch is visible where that was detected)
   * @throws QuarantineLimitExceededException if the batch quarantined too much (nothing committed)
   * @throws TableLostException if a table lost the batches the checkpoint committed (nothing
   *     written)
   * @throws SourceStoppedException if a stop interrupted the read
   * @throws BatchFailedException for any other failure, naming the batch
   */
  public Optional<Result> run(Batch batch, ProgressModel model, PhaseTimer timer) throws Exception {
    try {
      return runSteps(batch, model, timer);
    } catch (SourceStoppedException
        | PartitionMovedException
        | TableLostException
        | BatchFailedException
        | QuarantineLimitExceededException e) {
      throw e; // a stop, a fence, a lost table, or already named
    } catch (Exception e) {
      // Per-record problems never get here (they are quarantined): name the batch the failure holds
      // up.
      throw new BatchFailedException(
          settings.pipelineId(), batch.id(), settings.source().describe(batch.range()), e);
    }
  }

  private Optional<Result> runSteps(Batch batch, ProgressModel model, PhaseTimer timer)
      throws Exception {
    RecordProcessor processor = settings.processor();
    CrashPoints.Names points = model.crashPoints();
    try (BatchOutputs outputs = model.open(batch)) {
      // Even when every table already holds the batch, a stateful processor must replay it to
      // rebuild the state version it commits; a stateless one could skip the read.
      processor.beginBatch(batch.context());
      ProcessorInput input =
          new ProcessorInput(processor, outputs, points.midBatch(), settings.progress().activity());
      List<String> readGaps = List.of();
      if (batch.readFor().isPresent()) {
        // the continuous trigger: read as records arrive, then fix the batch before any commit
        BatchRange read = settings.source().readFor(batch.range(), batch.readFor().get(), input);
        CrashPoints.reached(CrashPoints.AFTER_CONTINUOUS_READ);
        Optional<Batch> fixed = model.fix(batch, read);
        if (fixed.isEmpty()) {
          return Optional.empty(); // nothing arrived: the writers close without a commit
        }
        batch = fixed.get();
      } else {
        readGaps = settings.source().read(batch.range(), processor.dependsOnRecordOrder(), input);
      }
      processor.endBatch(outputs);
      OptionalLong nextWatermark = processor.nextWatermarkMicros();
      timer.mark("process");
      checkQuarantineLimit(batch, outputs);
      Map<String, String> info = commitInfo(batch, readGaps, outputs.violations());
      logViolations(batch, outputs.violations());
      CommitTally tally = new CommitTally(model.tables());
      settings.progress().activity().enter(RunActivity.Phase.COMMITTING);
      long quarantineVersion = outputs.quarantineWriter().commit(info);
      CrashPoints.reached(points.afterQuarantineCommit());
      long lateVersion = -1;
      if (outputs.lateWriter().isPresent()) {
        lateVersion = outputs.lateWriter().get().commit(info);
      }
      long sinkVersion = outputs.sink().commit(info);
      CrashPoints.reached(points.afterSinkCommit());
      tally.finish();
      timer.mark("commit");
      processor.commit(batch.id());
      CrashPoints.reached(points.afterStateCommit());
      timer.mark("stateCommit");
      model.done(
          batch,
          nextWatermark,
          new ProgressModel.Committed(sinkVersion, quarantineVersion, lateVersion));
      timer.mark("checkpointCommit");
      BatchProgress done =
          progress(
              batch,
              timer,
              outputs,
              outputs.sink().rows(),
              outputs.quarantineWriter().rows(),
              sinkVersion,
              readGaps,
              tally);
      settings.progress().add(done);
      return Optional.of(new Result(batch.id(), nextWatermark, sinkVersion, done));
    }
  }

  /**
   * Before any commit: a batch above {@code quarantine.max-fraction} fails here, leaving every
   * table as it was.
   */
  private void checkQuarantineLimit(Batch batch, BatchOutputs outputs)
      throws QuarantineLimitExceededException {
    Optional<QuarantineLimit> limit = settings.quarantineLimit();
    if (limit.isPresent()
        && limit.get().exceededBy(outputs.quarantinedRows(), outputs.inputRows())) {
      throw new QuarantineLimitExceededException(
          settings.pipelineId(),
          batch.id(),
          settings.source().describe(batch.range()),
          outputs.quarantinedRows(),
          outputs.inputRows(),
          limit.get(),
          outputs.firstQuarantineError());
    }
  }

  /**
   * What the tables' commits record: the batch's extras but planning details, the batch id, the
   * source's description of its range, and any input that vanished while it was read.
   */
  private Map<String, String> commitInfo(
      Batch batch, List<String> readGaps, Map<String, Long> violations) {
    Map<String, String> info = new LinkedHashMap<>(batch.extras());
    info.remove(BatchRange.BACKLOGGED); // planning detail for the processor, not table history
    info.put("batchId", Long.toString(batch.id()));
    info.putAll(new TreeMap<>(settings.source().commitInfo(batch.range())));
    if (batch.watermarkMicros().isPresent()) {
      // Completeness: rows older than the applied watermark were late in this batch and will be in
      // every later one (the watermark never goes back), so the table is complete up to it.
      info.put(WATERMARK_INFO, micros(batch.watermarkMicros().getAsLong()).toString());
    }
    if (!readGaps.isEmpty()) {
      // each gap is a JSON object (the source's description): the value is a JSON array
      info.put("dataLossWhileReading", "[" + String.join(",", readGaps) + "]");
    }
    if (!violations.isEmpty()) {
      // rule names are identifiers: a JSON object by name needs no escaping
      StringBuilder json = new StringBuilder("{");
      violations.forEach(
          (name, count) ->
              json.append(json.length() > 1 ? "," : "")
                  .append('"')
                  .append(name)
                  .append("\":")
                  .append(count));
      info.put("expectationViolations", json.append('}').toString());
    }
    return info;
  }

  /** One WARN line per batch naming the rules some rows violated, with their counts. */
  private void logViolations(Batch batch, Map<String, Long> violations) {
    if (!violations.isEmpty()) {
      LOG.warn(
          "Pipeline {}: batch {}: rows violated expectations {} (counts per rule; each rule's"
              + " on-violation decided what happened to them)",
          settings.pipelineId(),
          batch.id(),
          violations);
    }
  }

  private BatchProgress progress(
      Batch batch,
      PhaseTimer timer,
      BatchOutputs outputs,
      long outputRows,
      long quarantined,
      long sinkVersion,
      List<String> readGaps,
      CommitTally tally) {
    Instant startedAt = timer.startedAt();
    long durationMs = Math.max(1, timer.elapsedMs());
    double inputRate = 0;
    if (previousBatchStart != null) {
      long sincePrevious = Math.max(1, Duration.between(previousBatchStart, startedAt).toMillis());
      inputRate = outputs.inputRows() * 1000.0 / sincePrevious;
    }
    previousBatchStart = startedAt;
    List<String> gaps = new ArrayList<>();
    String planned = batch.extras().get(BatchRange.DATA_LOSS);
    if (planned != null) {
      gaps.add(planned);
    }
    gaps.addAll(readGaps);
    return new BatchProgress(
        settings.pipelineId(),
        batch.id(),
        batch.replayed(),
        startedAt,
        outputs.inputRows(),
        outputRows,
        quarantined,
        outputs.filteredRows(),
        outputs.lateRows(),
        inputRate,
        outputs.inputRows() * 1000.0 / durationMs,
        durationMs,
        timer.phases(),
        batch.plan().progress(),
        sinkVersion,
        batch.watermarkMicros().isPresent() ? micros(batch.watermarkMicros().getAsLong()) : null,
        gaps,
        settings.processor().stateMetrics(),
        tally.retries,
        tally.conflicts,
        batch.plan().sourceLag(),
        outputs.violations(),
        outputs.newestRecordAt().orElse(null));
  }

  private static Instant micros(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L);
  }

  /** Feeds a batch's input to the processor; the mid-batch crash point sits between two inputs. */
  private record ProcessorInput(
      RecordProcessor processor, BatchOutputs outputs, String midBatch, RunActivity activity)
      implements SourceInput {
    @Override
    public void record(ConsumerRecord<byte[], byte[]> record) throws Exception {
      CrashPoints.reached(midBatch);
      activity.progressed();
      outputs.recordTimestamp(record.timestamp());
      processor.process(record, outputs);
    }

    @Override
    public void row(SourceRow row) throws Exception {
      CrashPoints.reached(midBatch);
      activity.progressed();
      processor.processRow(row, outputs);
    }

    @Override
    public void beginInput(int index) throws Exception {
      processor.beginInput(index);
    }
  }

  /** Commit retries and conflicts of one batch's table commits: counters after minus before. */
  private static final class CommitTally {
    private final List<TableSink> tables;
    private final List<CommitCounters> before = new ArrayList<>();
    long retries;
    long conflicts;

    CommitTally(List<TableSink> tables) {
      this.tables = List.copyOf(tables);
      this.tables.forEach(t -> before.add(t.commitCounters()));
    }

    void finish() {
      for (int i = 0; i < tables.size(); i++) {
        CommitCounters after = tables.get(i).commitCounters();
        retries += after.retries() - before.get(i).retries();
        conflicts += after.conflicts() - before.get(i).conflicts();
      }
    }
  }
}
