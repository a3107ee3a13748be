package dev.tributary.table.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.NoSuchElementException;
import org.apache.parquet.hadoop.ParquetReader;

/** Iterates the rows of one Parquet reader, reading one row ahead. */
final class ParquetRowIterator implements RowIterator {
  private final ParquetReader<Object[]> reader;
  private final String location;
  private final String key;
  private Object[] next;
  private boolean done;
  private boolean closed;
  private long index = -1;

  ParquetRowIterator(ParquetReader<Object[]> reader, String location, String key) {
    this.reader = reader;
    this.location = location;
    this.key = key;
  }

  @Override
  public boolean hasNext() {
    if (next == null && !done) {
      if (closed) {
        throw new IllegalStateException("The reader of data file '" + key + "' is closed");
      }
      try {
        next = reader.read();
      } catch (IOException e) {
        throw new UncheckedIOException(DataErrors.readFailed(location, key, e), e);
      }
      done = next == null;
    }
    return next != null;
  }

  @Override
  public Object[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException("No more rows in data file '" + key + "'");
    }
    Object[] row = next;
    next = null;
    index++; // no filter and no skipped row group: the n-th row read is row n of the file
    return row;
  }

  @Override
  public long rowIndex() {
    if (index < 0) {
      throw new IllegalStateException("no row of '" + key + "' was returned yet");
    }
    return index;
  }

  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      reader.close();
    }
  }
}
