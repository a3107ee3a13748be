package dev.tributary.table.data;

import dev.tributary.table.dv.RoaringBitmapArray;
import java.io.IOException;
import java.util.NoSuchElementException;

/** The rows of a file that its deletion vector does not delete. */
final class LiveRowIterator implements RowIterator {
  private final RowIterator rows;
  private final RoaringBitmapArray deleted;
  private Object[] next;
  private long nextIndex = -1;
  private long index = -1;

  LiveRowIterator(RowIterator rows, RoaringBitmapArray deleted) {
    this.rows = rows;
    this.deleted = deleted;
  }

  @Override
  public boolean hasNext() {
    while (next == null && rows.hasNext()) {
      Object[] row = rows.next();
      if (!deleted.contains(rows.rowIndex())) {
        next = row;
        nextIndex = rows.rowIndex();
      }
    }
    return next != null;
  }

  @Override
  public Object[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException("No more live rows");
    }
    Object[] row = next;
    next = null;
    index = nextIndex;
    return row;
  }

  @Override
  public long rowIndex() {
    if (index < 0) {
      throw new IllegalStateException("no row was returned yet");
    }
    return index;
  }

  @Override
  public void close() throws IOException {
    rows.close();
  }
}
