package dev.tributary.service.backfill;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.Snapshot;
import dev.tributary.table.types.StructField;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The backfill's table: the pipeline's Delta sink, taking only the rows its {@link RowSelector}
 * keeps (the rest lie outside the range). Counts what it kept and left out of committed batches,
 * for the summary. Everything else (idempotency by batch, commit, facts) is the table's own.
 */
final class RangeFilteredSink implements TableSink {
  private final TableSink table;
  private final RowSelector selector;
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong outside = new AtomicLong();

  RangeFilteredSink(TableSink table, RowSelector selector) {
    this.table = table;
    this.selector = selector;
  }

  /** Rows written by the batches this process committed. */
  long written() {
    return written.get();
  }

  /** Rows of those batches left out as outside the range. */
  long outside() {
    return outside.get();
  }

  @Override
  public String location() {
    return table.location();
  }

  @Override
  public CommitCounters commitCounters() {
    return table.commitCounters();
  }

  @Override
  public Snapshot snapshot() throws IOException {
    return table.snapshot();
  }

  @Override
  public TableTxns.TableHistory history(TableTxns txns) throws IOException {
    return table.history(txns);
  }

  @Override
  public Optional<TableFacts> facts(String batchAppId, long sinceVersion) throws IOException {
    return table.facts(batchAppId, sinceVersion);
  }

  @Override
  public String waysOnAfterLoss(long batch) {
    return table.waysOnAfterLoss(batch);
  }

  @Override
  public BatchWriter begin(BatchTag tag) throws IOException {
    return new Filtering(table.begin(tag));
  }

  private final class Filtering implements BatchWriter {
    private final BatchWriter writer;
    private long kept;
    private long left;

    Filtering(BatchWriter writer) {
      this.writer = writer;
    }

    @Override
    public boolean alreadyCommitted() {
      return writer.alreadyCommitted();
    }

    @Override
    public void write(Object[] row) throws IOException {
      if (selector.keeps(row)) {
        kept++;
        writer.write(row);
      } else {
        left++;
      }
    }

    @Override
    public void addColumns(List<StructField> columns) throws IOException {
      writer.addColumns(columns);
    }

    @Override
    public String refusal(Object[] row) throws IOException {
      // a row outside the range is not written, so there is nothing for the table to refuse
      return selector.keeps(row) ? writer.refusal(row) : null;
    }

    @Override
    public long rows() {
      return writer.rows();
    }

    @Override
    public boolean buffersUntilCommit() {
      return writer.buffersUntilCommit();
    }

    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      long version = writer.commit(commitInfo);
      if (!writer.alreadyCommitted()) {
        written.addAndGet(kept);
        outside.addAndGet(left);
      }
      return version;
    }

    @Override
    public void close() {
      writer.close();
    }
  }
}
