package dev.tributary.service.stateful;

import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Runs a {@link StreamJoinOperator} batch by batch as the engine will (open the state at N-1,
 * begin, left rows, right rows, end, commit N) on a real checkpoint directory, collecting what it
 * emits. A restart drops the operator and its working copy and reopens the last committed version;
 * a replay runs a batch, throws its output and state changes away, and runs it again.
 */
final class JoinRunner implements AutoCloseable {
  private final StreamJoinDefinition join;
  private final ObjectStore checkpoint;
  private final Path localDir;
  private StateStore store;
  private StreamJoinOperator operator;
  private long nextBatch;

  /** What one batch emitted. */
  record Batch(
      List<List<Object>> output,
      List<List<Object>> late,
      long filtered,
      Map<String, Long> metrics) {}

  JoinRunner(StreamJoinDefinition join, Path dir) throws IOException {
    this.join = join;
    this.checkpoint =
        ObjectStores.open(dir.resolve("checkpoint").toString(), S3Settings.defaults());
    this.localDir = dir.resolve("local");
    this.store =
        StateStore.open(checkpoint, StreamJoinOperator.OPERATOR_ID, nextBatch - 1, localDir);
    this.operator = new StreamJoinOperator(join);
  }

  /** Runs and commits the next batch. */
  Batch batch(long evictMicros, long lateMicros, List<Object[]> left, List<Object[]> right)
      throws IOException {
    Batch b = run(evictMicros, lateMicros, left, right);
    if (!store.commit(nextBatch)) {
      throw new IllegalStateException("batch " + nextBatch + " was committed before");
    }
    nextBatch++;
    return b;
  }

  /**
   * Runs the next batch without committing it, drops the store (a crash before the state commit),
   * reopens the last committed version, and runs and commits the batch again.
   */
  Batch replayed(long evictMicros, long lateMicros, List<Object[]> left, List<Object[]> right)
      throws IOException {
    run(evictMicros, lateMicros, left, right);
    restart();
    return batch(evictMicros, lateMicros, left, right);
  }

  /** Drops the working copy and the operator and reopens the last committed state. */
  void restart() throws IOException {
    store.close();
    store = StateStore.open(checkpoint, StreamJoinOperator.OPERATOR_ID, nextBatch - 1, localDir);
    operator = new StreamJoinOperator(join);
  }

  private Batch run(long evictMicros, long lateMicros, List<Object[]> left, List<Object[]> right)
      throws IOException {
    Collected out = new Collected();
    operator.begin(store, nextBatch, evictMicros, lateMicros);
    for (Object[] row : left) {
      operator.left(row, out);
    }
    for (Object[] row : right) {
      operator.right(row, out);
    }
    operator.end(out);
    return new Batch(out.output, out.late, out.filtered, operator.metrics());
  }

  StateStore store() {
    return store;
  }

  StreamJoinOperator operator() {
    return operator;
  }

  @Override
  public void close() throws IOException {
    store.close();
    checkpoint.close();
  }

  private static final class Collected implements Emitter {
    final List<List<Object>> output = new ArrayList<>();
    final List<List<Object>> late = new ArrayList<>();
    long filtered;

    @Override
    public void output(Object[] row) {
      output.add(Arrays.asList(row.clone()));
    }

    @Override
    public void late(Object[] row, Late why) {
      List<Object> l = new ArrayList<>(Arrays.asList(row));
      l.add(why.operator());
      l.add(why.watermarkMicros());
      late.add(l);
    }

    @Override
    public void filtered() {
      filtered++;
    }
  }

  /** A stateWatermark function as Spark derives it (S2r): {@code ((W_ms*1000+offset)/1000) - 1}. */
  static java.util.function.LongFunction<OptionalLong> stateWatermark(
      long offsetMicros, boolean strict) {
    return evict -> {
      long ms = (evict / 1000 * 1000 + offsetMicros) / 1000 - (strict ? 0 : 1);
      return OptionalLong.of(ms * 1000);
    };
  }
}
