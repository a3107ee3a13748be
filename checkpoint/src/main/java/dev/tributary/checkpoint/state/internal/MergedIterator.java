package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.rocksdb.RocksIterator;

/**
 * A prefix scan over committed state (a RocksDB iterator, which reads a consistent view from the
 * moment it was created) merged with a copy of the pending changes taken at the same moment. On
 * equal keys the pending change wins; a pending delete hides the committed entry.
 */
final class MergedIterator implements StateIterator {
  private final RocksIterator committed;
  private final Iterator<Map.Entry<byte[], byte[]>> pending;
  private final byte[] prefix;
  private final Runnable onClose;
  private Map.Entry<byte[], byte[]> nextPending;
  private StateEntry next;
  private boolean closed;

  /**
   * @param pending changes under {@code prefix} in key order; a null value is a delete
   * @param onClose called once when this iterator is closed
   */
  MergedIterator(RocksIterator committed, List<Map.Entry<byte[], byte[]>> pending, byte[] prefix,
      Runnable onClose) {
    this.committed = committed;
    this.pending = pending.iterator();
    this.prefix = prefix.clone();
    this.onClose = onClose;
    committed.seek(this.prefix);
    nextPending = this.pending.hasNext() ? this.pending.next() : null;
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
    advance();
    return result;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      committed.close();
      onClose.run();
    }
  }

  private void advance() {
    next = null;
    while (next == null && !closed) {
      byte[] committedKey = committedKey();
      if (committedKey == null && nextPending == null) {
        return;
      }
      int order = committedKey == null ? 1
          : nextPending == null ? -1
          : Arrays.compareUnsigned(committedKey, nextPending.getKey());
      if (order < 0) {
        next = new StateEntry(committedKey, committed.value());
        committed.next();
      } else {
        if (order == 0) {
          committed.next();
        }
        Map.Entry<byte[], byte[]> change = nextPending;
        nextPending = pending.hasNext() ? pending.next() : null;
        if (change.getValue() != null) {
          next = new StateEntry(change.getKey().clone(), change.getValue().clone());
        }
      }
    }
  }

  private byte[] committedKey() {
    if (!committed.isValid()) {
      return null;
    }
    byte[] key = committed.key();
    return startsWith(key, prefix) ? key : null;
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }
}
