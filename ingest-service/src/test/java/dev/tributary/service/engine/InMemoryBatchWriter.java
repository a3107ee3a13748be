package dev.tributary.service.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A batch writer that keeps what the processor writes in memory, for tests that drive a processor.
 */
public final class InMemoryBatchWriter implements TableSink.BatchWriter {
  final List<Object[]> rows;

  public InMemoryBatchWriter() {
    this(new ArrayList<>());
  }

  /** A writer that adds the rows to {@code rows}. */
  public InMemoryBatchWriter(List<Object[]> rows) {
    this.rows = rows;
  }

  @Override
  public boolean alreadyCommitted() {
    return false;
  }

  @Override
  public void write(Object[] row) {
    rows.add(row);
  }

  @Override
  public long rows() {
    return rows.size();
  }

  @Override
  public long commit(Map<String, String> commitInfo) {
    return 0;
  }

  @Override
  public void close() {}
}
