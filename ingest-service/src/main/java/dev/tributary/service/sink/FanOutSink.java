package dev.tributary.service.sink;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.table.CommitCounters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Several sinks fed by the same batch ({@code sinks:}), as one {@link TableSink}: every row goes to
 * every sink that does not hold the batch yet, and the commit commits them one after the other in
 * the declared order. Each sink is exactly once by its own idempotency key (a Delta {@code txn}, a
 * database progress row, a Kafka transaction's marker), so a crash between two of the commits
 * ({@link CrashPoints#AFTER_SINK_PART_COMMIT}) replays the batch: the sinks that committed it skip
 * it, the others write it (docs/DESIGN.md, "Several sinks").
 *
 * <p>The commits are not atomic across sinks: for a moment a reader of the first sink sees a batch
 * the second has not received yet. That is the price of sinks that share no transaction; the
 * checkpoint marks the batch done only after the last of them.
 */
public final class FanOutSink implements TableSink, AutoCloseable {
  private final List<TableSink> parts;

  /**
   * @param parts the sinks in the order they commit, at least two
   */
  public FanOutSink(List<TableSink> parts) {
    if (parts.size() < 2) {
      throw new IllegalArgumentException("a fan-out needs at least two sinks, got " + parts);
    }
    this.parts = List.copyOf(parts);
  }

  @Override
  public String location() {
    return parts.stream().map(TableSink::location).collect(Collectors.joining(", ", "[", "]"));
  }

  @Override
  public List<TableSink> parts() {
    return parts;
  }

  /** The counters of every part, added up. */
  @Override
  public CommitCounters commitCounters() {
    CommitCounters sum = CommitCounters.ZERO;
    for (TableSink part : parts) {
      sum = sum.plus(part.commitCounters());
    }
    return sum;
  }

  /**
   * The first part's history ({@code NewCheckpointStart} asks every part through {@link #parts}).
   */
  @Override
  public TableTxns.TableHistory history(TableTxns txns) throws IOException {
    return parts.get(0).history(txns);
  }

  @Override
  public BatchWriter begin(BatchTag tag) throws IOException {
    List<BatchWriter> writers = new ArrayList<>();
    try {
      for (TableSink part : parts) {
        writers.add(part.begin(tag));
      }
    } catch (IOException | RuntimeException e) {
      writers.forEach(BatchWriter::close);
      throw e;
    }
    return new Writer(writers);
  }

  /** Closes the parts that hold resources (a producer, a connection). */
  @Override
  public void close() {
    for (TableSink part : parts) {
      if (part instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception ignored) {
          // best effort, like every close of a run's resources
        }
      }
    }
  }

  /** One writer per part; rows go to the parts that do not hold the batch. */
  private static final class Writer implements BatchWriter {
    private final List<BatchWriter> writers;
    private final List<BatchWriter> writing;
    private long rows;

    Writer(List<BatchWriter> writers) {
      this.writers = List.copyOf(writers);
      this.writing = writers.stream().filter(w -> !w.alreadyCommitted()).toList();
    }

    @Override
    public boolean alreadyCommitted() {
      return writing.isEmpty();
    }

    @Override
    public void write(Object[] row) throws IOException {
      for (BatchWriter w : writing) {
        w.write(row);
      }
      rows++;
    }

    @Override
    public long rows() {
      return alreadyCommitted() ? 0 : rows;
    }

    /**
     * Commits the parts in order, a crash point between two of them.
     *
     * @return the first part's result (its table version, or -1 if it held the batch)
     */
    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      long first = -1;
      for (int i = 0; i < writers.size(); i++) {
        long result = writers.get(i).commit(commitInfo);
        if (i == 0) {
          first = result;
        }
        if (i < writers.size() - 1) {
          CrashPoints.reached(CrashPoints.AFTER_SINK_PART_COMMIT);
        }
      }
      return first;
    }

    @Override
    public void close() {
      RuntimeException failure = null;
      for (BatchWriter w : writers) {
        try {
          w.close();
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }
}
