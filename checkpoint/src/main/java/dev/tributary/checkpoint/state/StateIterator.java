package dev.tributary.checkpoint.state;

import java.util.Iterator;

/**
 * Entries of a scan in ascending unsigned-byte order of keys. It shows the state as it was when the
 * scan started (committed state plus this version's changes so far): changes made while it is open
 * are allowed and not seen. Holds native resources: the caller must close it; {@link
 * StateStore#close()} closes any still open.
 */
public interface StateIterator extends Iterator<StateEntry>, AutoCloseable {
  /** Releases the native iterator. Idempotent. */
  @Override
  void close();
}
