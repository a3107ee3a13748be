package dev.tributary.table.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;

/**
 * An iterator over a resource (an open data file) that must be closed. {@link #hasNext()} and
 * {@link #next()} report I/O failures as {@link UncheckedIOException} whose message names the file;
 * {@link #close()} releases the resource and may be called more than once.
 *
 * @param <T> element type
 */
public interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {

  /** Releases the underlying resource. Idempotent. */
  @Override
  void close() throws IOException;
}
