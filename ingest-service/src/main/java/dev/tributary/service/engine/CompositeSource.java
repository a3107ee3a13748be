package dev.tributary.service.engine;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The two inputs of a stream-stream join behind one {@link Source} (docs/DESIGN.md, "Two inputs in
 * one batch"): the pipeline's main input (input 0, the join's left side) and the join's second
 * input (input 1, {@code join[0].stream}, the right side), planned, written ahead and read as one
 * batch.
 *
 * <p><b>One range, two inputs.</b> A batch's {@link BatchRange} holds the main input's offsets and
 * facts exactly as a single-input pipeline writes them, so its entries read the same; the second
 * input's partitions are added with the topic renamed {@code stream.0:<topic>} and its facts with
 * keys prefixed {@code stream.0.} (docs/CHECKPOINT_FORMAT.md). A Kafka topic cannot contain {@code
 * :}, so the split is unambiguous. Each input sees only its own part, with its own names, and
 * ignores the other's.
 *
 * <p><b>Plan.</b> Each input plans with its own limits from its own part of the previous range; a
 * batch exists when either has input. {@link #boundToAvailableNow} bounds both.
 *
 * <p><b>Read.</b> The main input's whole range, then the second's (each in partition-then-offset
 * order when the processor depends on order), with {@link SourceInput#beginInput} before each and
 * the crash point {@value CrashPoints#AFTER_FIRST_INPUT} between them: a replay reads both ranges
 * again in the same order, so a stateful processor rebuilds the same state.
 *
 * <p>Not thread-safe, as every source (except {@link #wakeup}). Closes both inputs.
 */
public final class CompositeSource implements Source {
  /** The topic prefix of the second input's partitions in a range. */
  public static final String TOPIC_PREFIX = "stream.0:";

  /** The key prefix of the second input's facts in a range (and of its commitInfo keys). */
  public static final String FACT_PREFIX = "stream.0.";

  /** The main input's index in {@link SourceInput#beginInput}. */
  public static final int MAIN = 0;

  /** The second input's index in {@link SourceInput#beginInput}. */
  public static final int SECOND = 1;

  private final Source main;
  private final Source second;

  /**
   * @param main the pipeline's own source (input 0)
   * @param second the stream join's source (input 1)
   */
  public CompositeSource(Source main, Source second) {
    this.main = Objects.requireNonNull(main, "main");
    this.second = Objects.requireNonNull(second, "second");
  }

  /** The main input's part of a range: its partitions and every fact not the second input's. */
  public static BatchRange mainPart(BatchRange range) {
    Map<SourcePartition, OffsetRange> offsets = new TreeMap<>();
    range
        .offsets()
        .forEach(
            (p, r) -> {
              if (!p.topic().startsWith(TOPIC_PREFIX)) {
                offsets.put(p, r);
              }
            });
    Map<String, String> facts = new TreeMap<>();
    range
        .facts()
        .forEach(
            (k, v) -> {
              if (!k.startsWith(FACT_PREFIX)) {
                facts.put(k, v);
              }
            });
    return new BatchRange(offsets, facts);
  }

  /** The second input's part of a range, with its own topic names and fact keys. */
  public static BatchRange secondPart(BatchRange range) {
    Map<SourcePartition, OffsetRange> offsets = new TreeMap<>();
    range
        .offsets()
        .forEach(
            (p, r) -> {
              if (p.topic().startsWith(TOPIC_PREFIX)) {
                offsets.put(
                    new SourcePartition(p.topic().substring(TOPIC_PREFIX.length()), p.partition()),
                    r);
              }
            });
    Map<String, String> facts = new TreeMap<>();
    range
        .facts()
        .forEach(
            (k, v) -> {
              if (k.startsWith(FACT_PREFIX)) {
                facts.put(k.substring(FACT_PREFIX.length()), v);
              }
            });
    return new BatchRange(offsets, facts);
  }

  /** One range of the two parts: the main's as it is, the second's renamed. */
  public static BatchRange merged(BatchRange mainPart, BatchRange secondPart) {
    Map<SourcePartition, OffsetRange> offsets = new TreeMap<>(mainPart.offsets());
    secondPart.offsets().forEach((p, r) -> offsets.put(renamed(p), r));
    Map<String, String> facts = new TreeMap<>(mainPart.facts());
    secondPart.facts().forEach((k, v) -> facts.put(FACT_PREFIX + k, v));
    return new BatchRange(offsets, facts);
  }

  private static SourcePartition renamed(SourcePartition p) {
    return new SourcePartition(TOPIC_PREFIX + p.topic(), p.partition());
  }

  @Override
  public void boundToAvailableNow() throws IOException {
    main.boundToAvailableNow();
    second.boundToAvailableNow();
  }

  @Override
  public PlannedBatch plan(BatchRange previous, boolean firstBatch) throws IOException {
    PlannedBatch left = main.plan(mainPart(previous), firstBatch);
    PlannedBatch right = second.plan(secondPart(previous), firstBatch);
    return merged(left, right, left.hasInput() || right.hasInput());
  }

  @Override
  public PlannedBatch replayed(BatchRange range) throws IOException {
    return merged(main.replayed(mainPart(range)), second.replayed(secondPart(range)), true);
  }

  private static PlannedBatch merged(PlannedBatch left, PlannedBatch right, boolean hasInput) {
    List<BatchProgress.PartitionProgress> progress = new ArrayList<>(left.progress());
    right
        .progress()
        .forEach(
            p ->
                progress.add(
                    new BatchProgress.PartitionProgress(
                        TOPIC_PREFIX + p.topic(),
                        p.partition(),
                        p.startOffset(),
                        p.endOffset(),
                        p.latestOffset())));
    Map<String, Long> lag = new LinkedHashMap<>(left.sourceLag());
    right.sourceLag().forEach((k, v) -> lag.put(FACT_PREFIX + k, v));
    return new PlannedBatch(merged(left.range(), right.range()), hasInput, progress, lag);
  }

  /**
   * Reads the main input's range, then the second's, each announced with {@link
   * SourceInput#beginInput}; the gaps of both, the second's first key prefixed.
   */
  @Override
  public List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input)
      throws Exception {
    List<String> gaps = new ArrayList<>();
    input.beginInput(MAIN);
    gaps.addAll(main.read(mainPart(range), inFixedOrder, input));
    CrashPoints.reached(CrashPoints.AFTER_FIRST_INPUT);
    input.beginInput(SECOND);
    gaps.addAll(second.read(secondPart(range), inFixedOrder, input));
    return gaps;
  }

  /**
   * Refused: a stream-stream join reads planned ranges only (the continuous trigger is refused).
   */
  @Override
  public BatchRange readFor(BatchRange planned, Duration interval, SourceInput input) {
    throw new UnsupportedOperationException(
        "a pipeline with a stream-stream join reads planned ranges only (trigger: continuous is"
            + " not supported with one)");
  }

  /** The main input's history keys as they are, the second input's prefixed {@code stream.0.}. */
  @Override
  public Map<String, String> commitInfo(BatchRange range) {
    Map<String, String> info = new LinkedHashMap<>(main.commitInfo(mainPart(range)));
    new TreeMap<>(second.commitInfo(secondPart(range)))
        .forEach((k, v) -> info.put(FACT_PREFIX + k, v));
    return info;
  }

  @Override
  public String describe(BatchRange range) {
    return main.describe(mainPart(range))
        + " and join[0] input "
        + second.describe(secondPart(range));
  }

  @Override
  public void committed(BatchRange range) {
    main.committed(mainPart(range));
    second.committed(secondPart(range));
  }

  @Override
  public void idle(Duration wait) throws InterruptedException {
    main.idle(wait);
  }

  @Override
  public void wakeup() {
    main.wakeup();
    second.wakeup();
  }

  @Override
  public void close() {
    try {
      main.close();
    } finally {
      second.close();
    }
  }
}
