package dev.tributary.service.sink;

import dev.tributary.service.engine.TableSink;
import java.util.Map;

/** The writer of a batch a sink already holds: writes nothing, commits nothing. */
public final class AlreadyHeld implements TableSink.BatchWriter {
  @Override
  public boolean alreadyCommitted() {
    return true;
  }

  @Override
  public void write(Object[] row) {}

  @Override
  public long rows() {
    return 0;
  }

  /** Returns -1: the batch was committed before. */
  @Override
  public long commit(Map<String, String> commitInfo) {
    return -1;
  }

  @Override
  public void close() {}
}
