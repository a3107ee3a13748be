package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.QuarantineRows.InputKind;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.stream.SourceRow;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The record processor of a pipeline with a stream-stream join (docs/DESIGN.md, "Stream-stream
 * joins", step 5): the main input's stateless steps (parse, transforms, stream-static joins) give
 * the left rows, the second input's records parsed with its own format give the right rows, and
 * {@link StreamJoinOperator} joins them, its state in the checkpoint's versioned store {@code
 * state/join-0/}. The engine's {@link CompositeSource} hands each batch's main input first, then
 * the second, announced by {@link #beginInput}; the fixed order makes a replay rebuild the same
 * state version.
 *
 * <p>Watermarks: each input with a watermark has its own tracker; with two, {@link
 * MultiInputWatermark} chooses the global one ({@code watermark.multiple}) and its per-input values
 * are kept in the commits entry ({@value #WATERMARK_INPUTS}) and restored at start (W-persist), so
 * a restart never changes results. With one, it is that input's, as for a single input.
 *
 * <p>Late left rows go to the late-events table with {@code _late_operator = join}; late right rows
 * are counted ({@code join.right.lateRows}). Bad records of either input are quarantined with their
 * own provenance (topic, partition, offset).
 *
 * <p><b>After the join</b> (step 8): when the pipeline declares {@code deduplicate} or a window
 * {@code aggregate}, the joined rows go, in the order the join emits them, through a {@link
 * StatefulQuery} (the single-input pipelines' operators and stores) instead of to the sink. Its
 * watermarks are the join's output watermark ({@link DownstreamWatermark}, rule D1) of the batch's
 * {@code W_evict} and {@code W_late}; rows do not move them. Its stores ({@code state/dedup*},
 * {@code state/aggregate}) are committed after the join's, each at the batch's version, so a replay
 * of an uncommitted batch adopts whatever an earlier attempt committed, as for the other operators.
 * The late-events table then has the joined rows' columns: a late left row of the join fills the
 * right columns with nulls, a row an operator after the join drops is the joined row.
 */
public final class StreamJoinProcessor implements RecordProcessor {
  /** Commits entry extra: the inputs' own watermarks, {@code <µs|none>,<µs|none>} (main first). */
  public static final String WATERMARK_INPUTS = "watermark.inputs";

  private final String pipelineId;
  private final StatelessProcessor left;
  private final StreamJoinBinding binding;
  private final StreamJoinOperator operator;
  private final ObjectStore checkpointStore;
  private final Path localDir;
  private final Watermarks watermarks;
  private final int leftTime;
  private final int rightTime;
  private final int rightWidth;
  private final boolean evicts;
  private final Map<TopicPartition, Integer> partitions = new HashMap<>();
  private StateStore store;
  private int input;
  private long batchId;
  private Instant batchStartedAt;
  private long evictMicros;
  private OptionalLong next = OptionalLong.empty();
  private boolean ended;
  private boolean begun;
  private OutputsEmitter emitter;

  /** The operators after the join, or null: the joined rows go to the sink. */
  private final StatefulQuery after;

  private final DownstreamWatermark downstream;
  private final int joinedWidth;
  private Emitter afterEmitter;

  /**
   * @param left the main input's stateless steps, whose output rows are the left rows ({@link
   *     StreamJoinBinding#leftSchema}); closed with this processor
   * @param binding the join
   * @param checkpointStore the store rooted at the pipeline's checkpoint; not closed here
   * @param localDir a directory this processor owns for the state store's working copy
   */
  public StreamJoinProcessor(
      String pipelineId,
      StatelessProcessor left,
      StreamJoinBinding binding,
      ObjectStore checkpointStore,
      Path localDir) {
    this(pipelineId, left, binding, Optional.empty(), checkpointStore, localDir);
  }

  /**
   * A join followed by the stateful operators of {@code after} (deduplicate, window aggregation),
   * compiled against the join's output rows ({@link StreamJoinBinding#outputSchema}) with the
   * join's event-time column as its watermark column.
   *
   * @param after the operators after the join; empty: the joined rows are the sink's
   */
  public StreamJoinProcessor(
      String pipelineId,
      StatelessProcessor left,
      StreamJoinBinding binding,
      Optional<StatefulPlan> after,
      ObjectStore checkpointStore,
      Path localDir) {
    if (after.isPresent() && !after.get().inputSchema().equals(binding.outputSchema())) {
      throw new IllegalArgumentException(
          "pipeline "
              + pipelineId
              + ": the operators after the join were compiled for "
              + after.get().inputSchema().fieldNames()
              + " but the join outputs "
              + binding.outputSchema().fieldNames());
    }
    if (!left.outputSchema().equals(binding.leftSchema())) {
      throw new IllegalArgumentException(
          "pipeline "
              + pipelineId
              + ": the join was bound for left columns "
              + binding.leftSchema().fieldNames()
              + " but the main input's steps produce "
              + left.outputSchema().fieldNames());
    }
    this.pipelineId = pipelineId;
    this.left = left;
    this.binding = binding;
    StreamJoinDefinition definition = binding.definition();
    this.operator = new StreamJoinOperator(definition);
    this.evicts =
        definition.left().stateWatermark() != StreamJoinDefinition.Side.NEVER
            || definition.right().stateWatermark() != StreamJoinDefinition.Side.NEVER;
    this.checkpointStore = checkpointStore;
    this.localDir = localDir;
    Optional<WatermarkSpec> leftWm = binding.leftWatermark();
    Optional<WatermarkSpec> rightWm = binding.spec().stream().watermark();
    this.leftTime = leftWm.map(w -> binding.leftSchema().indexOf(w.column())).orElse(-1);
    this.rightTime = binding.rightWatermark().map(c -> binding.rightSchema().indexOf(c)).orElse(-1);
    this.rightWidth = binding.rightSchema().size();
    this.joinedWidth = binding.outputSchema().size();
    this.downstream = DownstreamWatermark.of(definition);
    // rows do not move its watermark: the join's output watermark is handed to it each batch
    this.after =
        after
            .map(
                plan ->
                    new StatefulQuery(
                        plan, checkpointStore, localDir, false /* rowsMoveWatermark */))
            .orElse(null);
    WatermarkTracker leftTracker =
        leftWm
            .map(
                w ->
                    new WatermarkTracker(
                        w.policy() == WatermarkSpec.Policy.PER_PARTITION, Times.micros(w.delay())))
            .orElse(null);
    WatermarkTracker rightTracker =
        rightWm.map(w -> new WatermarkTracker(false, Times.micros(w.delay()))).orElse(null);
    this.watermarks =
        leftTracker != null && rightTracker != null
            ? new Both(
                new MultiInputWatermark(
                    MultiInputWatermark.Policy.of(leftWm.get().multiple().keyword()),
                    List.of(leftTracker, rightTracker)))
            : new One(leftTracker, rightTracker);
  }

  @Override
  public Map<String, String> planBatch(long batchId) throws IOException {
    return left.planBatch(batchId); // the stream-static joins' dimension versions
  }

  @Override
  public void beginBatch(BatchContext batch) throws IOException {
    this.batchId = batch.batchId();
    this.batchStartedAt = batch.batchStartedAt();
    left.beginBatch(batch);
    store = reopen(batch.batchId() - 1);
    evictMicros = batch.watermarkMicros().orElse(0);
    long lateMicros = batch.lateWatermarkMicros().orElse(0);
    operator.begin(store, batch.batchId(), evictMicros, lateMicros);
    if (after != null) {
      after.begin(
          batch.batchId(),
          OptionalLong.of(downstream.micros(evictMicros)),
          OptionalLong.of(downstream.micros(lateMicros)));
    }
    watermarks.begin(evictMicros, lateMicros);
    for (TopicPartition tp : batch.backlogged()) {
      if (watermarks.tracker(CompositeSource.MAIN) != null) {
        watermarks.tracker(CompositeSource.MAIN).backlogged(partition(CompositeSource.MAIN, tp));
      }
    }
    input = CompositeSource.MAIN;
    ended = false;
    begun = true;
  }

  private StateStore reopen(long version) throws IOException {
    if (store != null && store.version() == version) {
      store.abort();
      return store;
    }
    if (store != null) {
      store.close();
    }
    return StateStore.open(
        checkpointStore,
        StreamJoinOperator.OPERATOR_ID,
        version,
        localDir.resolve(StreamJoinOperator.OPERATOR_ID));
  }

  @Override
  public void beginInput(int index) {
    this.input = index;
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws Exception {
    outputs.quarantineInput(
        input == CompositeSource.MAIN ? QuarantineRows.MAIN_INPUT : QuarantineRows.JOIN_INPUT);
    // with a table as the other input, the quarantine holds both provenance sets
    outputs.quarantineLayout(
        QuarantineRows.joinedLayout(
            left.sourceTable().isPresent() ? InputKind.TABLE_ROWS : InputKind.RECORDS,
            binding.rightTable().isPresent() ? InputKind.TABLE_ROWS : InputKind.RECORDS,
            InputKind.RECORDS));
    int partition = partition(input, new TopicPartition(record.topic(), record.partition()));
    WatermarkTracker tracker = watermarks.tracker(input);
    if (tracker != null) {
      tracker.read(partition);
    }
    if (input == CompositeSource.MAIN) {
      Object[] row = left.toRow(record, outputs);
      if (row != null) {
        acceptLeft(row, partition, outputs);
      }
      return;
    }
    outputs.countInput();
    ParseResult result =
        binding
            .rightParser()
            .decode(
                record.topic(), record.partition(), record.offset(), record.key(), record.value());
    if (result instanceof ParseResult.Failure failure) {
      outputs.quarantine(
          QuarantineRows.row(record, failure.error(), pipelineId, batchId, batchStartedAt));
      return;
    }
    if (result instanceof ParseResult.Skipped) {
      outputs.countFiltered();
      return;
    }
    Object[] parsed = ((ParseResult.Success) result).row();
    Object[] row = new Object[rightWidth];
    System.arraycopy(parsed, 0, row, 0, rightWidth);
    if (operator.reachesJoin(JoinState.Side.RIGHT, row)) {
      observe(CompositeSource.SECOND, partition, row, rightTime);
    }
    operator.right(row, emitter(outputs));
  }

  /**
   * A typed row of a Delta input: the main input's becomes a left row through the main input's
   * steps; the second input's is a right row as it is (the right columns are the table's, prefixed:
   * nothing to decode).
   */
  @Override
  public void processRow(SourceRow source, BatchOutputs outputs) throws Exception {
    outputs.quarantineInput(
        input == CompositeSource.MAIN ? QuarantineRows.MAIN_INPUT : QuarantineRows.JOIN_INPUT);
    outputs.quarantineLayout(
        QuarantineRows.joinedLayout(
            left.sourceTable().isPresent() ? InputKind.TABLE_ROWS : InputKind.RECORDS,
            binding.rightTable().isPresent() ? InputKind.TABLE_ROWS : InputKind.RECORDS,
            InputKind.TABLE_ROWS));
    if (input != CompositeSource.MAIN) {
      if (binding.rightTable().isEmpty()) {
        throw new UnsupportedOperationException(
            "Pipeline " + pipelineId + ": join[0]'s input reads Kafka records, not table rows");
      }
      outputs.countInput();
      int partition = partition(input, new TopicPartition(binding.rightTable().get(), 0));
      WatermarkTracker tracker = watermarks.tracker(input);
      if (tracker != null) {
        tracker.read(partition);
      }
      Object[] row = new Object[rightWidth];
      System.arraycopy(source.values(), 0, row, 0, rightWidth);
      if (operator.reachesJoin(JoinState.Side.RIGHT, row)) {
        observe(CompositeSource.SECOND, partition, row, rightTime);
      }
      operator.right(row, emitter(outputs));
      return;
    }
    Object[] row = left.toRow(source, outputs);
    if (row != null) {
      acceptLeft(row, 0, outputs);
    }
  }

  private void acceptLeft(Object[] row, int partition, BatchOutputs outputs) throws IOException {
    List<Object[]> rows = left.join(row); // the stream-static joins: none, one or several rows
    if (rows.isEmpty()) {
      outputs.countFiltered();
      return;
    }
    for (Object[] joined : rows) {
      if (operator.reachesJoin(JoinState.Side.LEFT, joined)) {
        observe(CompositeSource.MAIN, partition, joined, leftTime);
      }
      operator.left(joined, emitter(outputs));
    }
  }

  /**
   * Every row reaching the join feeds its input's watermark, late or not (Spark's node order); a
   * row Spark's inferred {@code IS NOT NULL} filter drops does not ({@link
   * StreamJoinOperator#reachesJoin}).
   */
  private void observe(int index, int partition, Object[] row, int timeColumn) {
    WatermarkTracker tracker = watermarks.tracker(index);
    if (tracker != null && row[timeColumn] != null) {
      tracker.observe(partition, Times.micros((Instant) row[timeColumn]));
    }
  }

  @Override
  public void endBatch(BatchOutputs outputs) throws Exception {
    operator.end(emitter(outputs));
    if (after != null) {
      after.end(emitter(outputs).after);
    }
    next = watermarks.end(evictMicros);
    ended = true;
  }

  @Override
  public OptionalLong nextWatermarkMicros() {
    return next;
  }

  @Override
  public Map<String, String> commitExtras() {
    return watermarks.encode().map(v -> Map.of(WATERMARK_INPUTS, v)).orElse(Map.of());
  }

  @Override
  public void restoreCommitted(Map<String, String> extras) {
    String values = extras.get(WATERMARK_INPUTS);
    if (values != null) {
      try {
        watermarks.restore(values);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            "Pipeline "
                + pipelineId
                + ": commits entry extra "
                + WATERMARK_INPUTS
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  @Override
  public void commit(long batchId) throws IOException {
    store.commit(batchId);
    if (after != null) {
      CrashPoints.reached(CrashPoints.AFTER_JOIN_STATE_COMMIT);
      after.commit(batchId); // same version: a replay adopts what an earlier attempt committed
    }
    if (batchId % StatefulQuery.PURGE_EVERY == 0 && batchId > StatefulQuery.VERSIONS_KEPT) {
      StateStore.purge(
          checkpointStore, StreamJoinOperator.OPERATOR_ID, batchId - StatefulQuery.VERSIONS_KEPT);
    }
  }

  @Override
  public boolean dependsOnRecordOrder() {
    return true;
  }

  /**
   * D4: a join that evicts asks for a batch without data when the watermark moved on; so do the
   * operators after it when the join's output watermark of the next global one is ahead of the one
   * they evicted with.
   */
  @Override
  public boolean wantsNoDataBatch() {
    if (!ended || next.isEmpty()) {
      return false;
    }
    long nextMicros = next.getAsLong();
    return evicts && nextMicros > evictMicros
        || after != null && after.wantsNoDataBatch(downstream.micros(nextMicros));
  }

  @Override
  public void restored(OptionalLong appliedWatermarkMicros, OptionalLong nextWatermarkMicros) {
    evictMicros = appliedWatermarkMicros.orElse(0);
    next = nextWatermarkMicros;
    ended = true;
    if (after != null) {
      after.restored(OptionalLong.of(downstream.micros(evictMicros)), OptionalLong.empty());
    }
  }

  /**
   * The operator's {@code join.*} counters (docs/DESIGN.md, "Metrics"), and the totals over both
   * sides as {@code rows} and {@code bytes}, which the state gauges ({@code tributary.state.rows},
   * {@code tributary.state.bytes}) export as for the other operators.
   */
  @Override
  public Map<String, Long> stateMetrics() {
    if (!begun) {
      return Map.of();
    }
    Map<String, Long> m = new java.util.LinkedHashMap<>(operator.metrics());
    long rows = m.get("join.left.rows") + m.get("join.right.rows");
    long bytes = m.get("join.left.bytes") + m.get("join.right.bytes");
    if (after != null) {
      Map<String, Long> a = after.metrics();
      a.forEach(
          (k, v) -> {
            if (!k.equals("keys") && !k.equals("bytes")) {
              m.put(k, v);
            }
          });
      if (a.containsKey("dedup.keys")) {
        m.put("dedup.lateRows", emitter == null ? 0 : emitter.dedupLate);
      }
      if (a.containsKey("aggregate.keys")) {
        m.put("aggregate.lateRows", emitter == null ? 0 : emitter.aggregateLate);
      }
      rows += a.get("keys");
      bytes += a.get("bytes");
    }
    m.put("rows", rows);
    m.put("bytes", bytes);
    return m;
  }

  @Override
  public void close() {
    try {
      if (store != null) {
        store.close();
      }
      if (after != null) {
        after.close();
      }
    } finally {
      left.close();
    }
  }

  private int partition(int index, TopicPartition tp) {
    // a dense number per input; the inputs' trackers are apart, so the numbers may overlap
    TopicPartition keyed = new TopicPartition(index + ":" + tp.topic(), tp.partition());
    return partitions.computeIfAbsent(keyed, k -> partitions.size());
  }

  private OutputsEmitter emitter(BatchOutputs outputs) {
    if (emitter == null || emitter.outputs != outputs) {
      emitter = new OutputsEmitter(outputs);
    }
    return emitter;
  }

  /**
   * Where the join's rows go: to the operators after it if any (whose own rows go to {@link
   * #after}), else to the sink; late rows to the late-events table.
   */
  private final class OutputsEmitter implements Emitter {
    private final BatchOutputs outputs;

    /** The operators' emitter: the sink, and the late-events table with the joined rows. */
    private final Emitter after;

    // this batch's late rows of the operators after the join, for the state metrics
    private long dedupLate;
    private long aggregateLate;

    OutputsEmitter(BatchOutputs outputs) {
      this.outputs = outputs;
      this.after = new AfterJoin();
    }

    @Override
    public void output(Object[] row) throws IOException {
      if (StreamJoinProcessor.this.after == null) {
        outputs.output(row);
      } else {
        StreamJoinProcessor.this.after.accept(row, 0, after);
      }
    }

    /** A late left row of the join (L1): with operators after it, widened to the joined row. */
    @Override
    public void late(Object[] row, Late why) throws IOException {
      Object[] late = row;
      if (StreamJoinProcessor.this.after != null && row.length < joinedWidth) {
        late = Arrays.copyOf(row, joinedWidth); // the right columns null
      }
      outputs.late(outputs.writesLateRows() ? LateEvents.row(late, why) : late);
    }

    @Override
    public void filtered() {
      outputs.countFiltered();
    }

    private final class AfterJoin implements Emitter {
      @Override
      public void output(Object[] row) throws IOException {
        outputs.output(row);
      }

      @Override
      public void late(Object[] row, Late why) throws IOException {
        if (Late.DEDUPLICATE.equals(why.operator())) {
          dedupLate++;
        } else {
          aggregateLate++;
        }
        outputs.late(outputs.writesLateRows() ? LateEvents.row(row, why) : row);
      }

      @Override
      public void filtered() {
        outputs.countFiltered();
      }
    }
  }

  /** The watermark of the join's inputs. */
  private interface Watermarks {
    /** The tracker input {@code index}'s rows feed; null when the input has no watermark. */
    WatermarkTracker tracker(int index);

    void begin(long evictMicros, long lateMicros);

    /** The next batch's global watermark; empty when no input has a watermark. */
    OptionalLong end(long evictMicros);

    /** The per-input values to persist, if the inputs keep their own. */
    Optional<String> encode();

    void restore(String encoded);
  }

  /** Both inputs watermarked: Spark's multiple-watermark rules, the values persisted. */
  private record Both(MultiInputWatermark multi) implements Watermarks {
    @Override
    public WatermarkTracker tracker(int index) {
      return multi.input(index);
    }

    @Override
    public void begin(long evictMicros, long lateMicros) {
      multi.begin(lateMicros);
    }

    @Override
    public OptionalLong end(long evictMicros) {
      return OptionalLong.of(multi.end(evictMicros));
    }

    @Override
    public Optional<String> encode() {
      return Optional.of(multi.encode());
    }

    @Override
    public void restore(String encoded) {
      multi.restore(encoded);
    }
  }

  /**
   * One input watermarked (or none): the global watermark is that input's, as with a single input
   * (Spark's tracker only has nodes for declared watermarks).
   */
  private record One(WatermarkTracker leftTracker, WatermarkTracker rightTracker)
      implements Watermarks {
    private WatermarkTracker only() {
      return leftTracker != null ? leftTracker : rightTracker;
    }

    @Override
    public WatermarkTracker tracker(int index) {
      return index == CompositeSource.MAIN ? leftTracker : rightTracker;
    }

    @Override
    public void begin(long evictMicros, long lateMicros) {
      if (only() != null) {
        only().begin(evictMicros, lateMicros);
      }
    }

    @Override
    public OptionalLong end(long evictMicros) {
      return only() == null ? OptionalLong.empty() : OptionalLong.of(only().nextMicros());
    }

    @Override
    public Optional<String> encode() {
      return Optional.empty();
    }

    @Override
    public void restore(String encoded) {}
  }
}
