package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.OutputMode;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Runs a {@link StatefulQuery} batch by batch the way the engine does (begin, rows, end, sink,
 * commit; a no-data batch while the query wants one) and keeps the resulting table the way each
 * output mode's sink would: appended rows, rows merged by key, or the last complete result.
 * Restarts and crashes are simulated by dropping the query and opening a new one on the same
 * checkpoint.
 */
final class QueryRunner implements AutoCloseable {
  /** Where a simulated crash happens in a batch. */
  enum Crash {
    NONE,
    BEFORE_SINK_COMMIT,
    BEFORE_STATE_COMMIT
  }

  private final StatefulPlan plan;
  private final ObjectStore checkpoint;
  private final Path localDir;
  private StatefulQuery query;
  private OptionalLong watermark = OptionalLong.empty();
  private OptionalLong lateWatermark = OptionalLong.empty();
  private long nextBatch;
  private final List<List<Object>> appended = new ArrayList<>();
  private final Map<List<Object>, List<Object>> merged = new LinkedHashMap<>();
  private List<List<Object>> complete = List.of();
  private final List<List<Object>> late = new ArrayList<>();
  private long filtered;

  QueryRunner(StatefulPlan plan, Path dir) throws IOException {
    this.plan = plan;
    this.checkpoint =
        ObjectStores.open(dir.resolve("checkpoint").toString(), S3Settings.defaults());
    this.localDir = dir.resolve("local");
    this.query = new StatefulQuery(plan, checkpoint, localDir);
  }

  /**
   * Drops the query (its uncommitted changes are lost) and opens a new one on the same checkpoint,
   * told what the last committed batch evicted with and computed, as the engine does at start.
   */
  void restart() {
    query.close();
    query = new StatefulQuery(plan, checkpoint, localDir);
    if (nextBatch > 0) {
      query.restored(lateWatermark, watermark);
    }
  }

  /**
   * Runs a batch of {@code rows}; an empty one only as the engine would: as a no-data batch, when
   * the query wants one.
   */
  void batch(List<Object[]> rows, Crash crash) throws IOException {
    if (rows.isEmpty() && !query.wantsNoDataBatch()) {
      return;
    }
    long id = nextBatch;
    Collected first = run(id, rows);
    if (crash == Crash.BEFORE_SINK_COMMIT) {
      restart();
      first = run(id, rows);
    } else if (crash == Crash.BEFORE_STATE_COMMIT) {
      apply(first);
      restart();
      Collected replay = run(id, rows);
      // The sink skips the replayed batch (txn), so the replay must have produced the same rows.
      assertThat(rowsOf(replay.output)).containsExactlyInAnyOrderElementsOf(rowsOf(first.output));
      query.commit(id);
      finish(id, replay);
      return;
    }
    apply(first);
    query.commit(id);
    finish(id, first);
  }

  /** Runs no-data batches while the query wants one (the watermark passed something). */
  void drain() throws IOException {
    while (query.wantsNoDataBatch()) {
      batch(List.of(), Crash.NONE);
    }
  }

  private void finish(long id, Collected c) {
    lateWatermark =
        watermark; // Spark's two watermarks: the next batch judges late rows with this one
    watermark = c.next;
    nextBatch = id + 1;
  }

  private Collected run(long id, List<Object[]> rows) throws IOException {
    Collected c = new Collected();
    query.begin(id, watermark, lateWatermark);
    int partitionColumn = plan.inputSchema().fieldNames().indexOf("_kafka_partition");
    for (Object[] row : rows) {
      query.accept(row, partitionColumn < 0 ? 0 : (Integer) row[partitionColumn], c);
    }
    query.end(c);
    c.next = query.nextWatermark();
    return c;
  }

  private void apply(Collected c) {
    List<List<Object>> out = rowsOf(c.output);
    if (plan.aggregates() && plan.outputMode() == OutputMode.UPDATE) {
      int keyWidth = plan.keyColumns().size();
      for (List<Object> r : out) {
        merged.put(new ArrayList<>(r.subList(0, keyWidth)), r);
      }
    } else if (plan.outputMode() == OutputMode.COMPLETE) {
      complete = out;
    } else {
      appended.addAll(out);
    }
    late.addAll(rowsOf(c.late));
    filtered += c.filtered;
  }

  /** The sink table's rows as the mode's sink leaves them. */
  List<List<Object>> table() {
    if (plan.aggregates() && plan.outputMode() == OutputMode.UPDATE) {
      return new ArrayList<>(merged.values());
    }
    return plan.outputMode() == OutputMode.COMPLETE ? complete : appended;
  }

  List<List<Object>> late() {
    return late;
  }

  long filtered() {
    return filtered;
  }

  OptionalLong watermark() {
    return watermark;
  }

  Map<String, Long> metrics() {
    return query.metrics();
  }

  long batches() {
    return nextBatch;
  }

  static List<List<Object>> rowsOf(List<Object[]> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] r : rows) {
      out.add(Arrays.asList(r.clone()));
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    query.close();
    checkpoint.close();
  }

  private static final class Collected implements Emitter {
    final List<Object[]> output = new ArrayList<>();
    final List<Object[]> late = new ArrayList<>();
    long filtered;
    OptionalLong next;

    @Override
    public void output(Object[] row) {
      output.add(row);
    }

    /**
     * As the late-events table gets it: the row, then operator, watermark, window start and end.
     */
    @Override
    public void late(Object[] row, Late why) {
      late.add(LateEvents.row(row, why));
    }

    @Override
    public void filtered() {
      filtered++;
    }
  }
}
