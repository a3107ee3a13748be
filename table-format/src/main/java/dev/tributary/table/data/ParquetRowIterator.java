package dev.tributary.table.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.NoSuchElementException;
import org.apache.parquet.hadoop.ParquetReader;

/** Iterates the rows of one Parquet reader, reading one row ahead. */
final class ParquetRowIterator implements CloseableIterator<Object[]> {
  private final ParquetReader<Object[]> reader;
  private final String description;
  private Object[] next;
  private boolean done;
  private boolean closed;

  ParquetRowIterator(ParquetReader<Object[]> reader, String description) {
    this.reader = reader;
    this.description = description;
  }

  @Override
  public boolean hasNext() {
    if (next == null && !done) {
      if (closed) {
        throw new IllegalStateException("reader of " + description + " is closed");
      }
      try {
        next = reader.read();
      } catch (IOException e) {
        throw new UncheckedIOException(e.getMessage() == null ? description : description + ": " + e.getMessage(), e);
      }
      done = next == null;
    }
    return next != null;
  }

  @Override
  public Object[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more rows in " + description);
    }
    Object[] row = next;
    next = null;
    return row;
  }

  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      reader.close();
    }
  }
}
