package dev.tributary.table.stream;

import dev.tributary.table.data.CloseableIterator;
import java.io.IOException;

/** The rows of one source file, numbered from 0, each with its file. */
final class SourceRowIterator implements CloseableIterator<SourceRow> {
  private final SourceFile file;
  private final CloseableIterator<Object[]> rows;
  private long index;

  SourceRowIterator(SourceFile file, CloseableIterator<Object[]> rows) {
    this.file = file;
    this.rows = rows;
  }

  @Override
  public boolean hasNext() {
    return rows.hasNext();
  }

  @Override
  public SourceRow next() {
    return new SourceRow(file, index++, rows.next());
  }

  @Override
  public void close() throws IOException {
    rows.close();
  }
}
