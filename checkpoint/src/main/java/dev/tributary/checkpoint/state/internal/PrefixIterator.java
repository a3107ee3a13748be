package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import java.util.Arrays;
import java.util.NoSuchElementException;
import org.rocksdb.RocksIterator;

/**
 * A prefix scan over the working copy. A RocksDB iterator reads the consistent view of the moment
 * it was created, so changes made while it is open (evicting what it returns) are not seen.
 */
final class PrefixIterator implements StateIterator {
  private final RocksIterator rocks;
  private final byte[] prefix;
  private final Runnable onClose;
  private StateEntry next;
  private boolean closed;

  /**
   * @param onClose called once when this iterator is closed
   */
  PrefixIterator(RocksIterator rocks, byte[] prefix, Runnable onClose) {
    this.rocks = rocks;
    this.prefix = prefix.clone();
    this.onClose = onClose;
    rocks.seek(this.prefix);
    advance();
  }

  @Override
  public boolean hasNext() {
    return next != null;
  }

  @Override
  public StateEntry next() {
    if (next == null) {
      throw new NoSuchElementException();
    }
    StateEntry result = next;
    rocks.next();
    advance();
    return result;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      next = null;
      rocks.close();
      onClose.run();
    }
  }

  private void advance() {
    next = null;
    if (closed || !rocks.isValid()) {
      return;
    }
    byte[] key = rocks.key();
    if (key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
      next = new StateEntry(key, rocks.value());
    }
  }
}
