package dev.tributary.storage;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A streaming write of one object. Bytes written are invisible to readers until {@link #close()}
 * returns normally, which publishes the whole object at once. If {@code close()} throws, the object
 * was not published (and any uploaded parts were discarded where possible).
 */
public abstract class ObjectWriter extends OutputStream {

  /** Bytes written so far; Parquet needs it to record column chunk offsets. */
  public abstract long position();

  /**
   * Discards everything written; the key is left as it was. Idempotent; close() after it is a
   * no-op.
   */
  public abstract void abort() throws IOException;
}
