package dev.tributary.table.stream;

import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.RowIterator;
import java.io.IOException;

/**
 * The rows of one source file, each with its file and its index in the file (from 0; rows its
 * deletion vector deletes are skipped and keep their index).
 */
final class SourceRowIterator implements CloseableIterator<SourceRow> {
  private final SourceFile file;
  private final RowIterator rows;

  SourceRowIterator(SourceFile file, RowIterator rows) {
    this.file = file;
    this.rows = rows;
  }

  @Override
  public boolean hasNext() {
    return rows.hasNext();
  }

  @Override
  public SourceRow next() {
    Object[] values = rows.next();
    return new SourceRow(file, rows.rowIndex(), values);
  }

  @Override
  public void close() throws IOException {
    rows.close();
  }
}
