package dev.tributary.table.data;

import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet {@link InputFile} over ranged reads of an object. Small reads are served from a window
 * fetched in one request; a window near the end of the object is aligned to the end, so the footer
 * (and, for small files, the whole file) costs a single request. Large reads (column chunks) go
 * straight to the store.
 */
final class StoreInputFile implements InputFile {
  static final int WINDOW = 1024 * 1024;

  private final ObjectStore store;
  private final String key;
  private final long length;

  StoreInputFile(ObjectStore store, String key) throws IOException {
    this.store = store;
    this.key = key;
    this.length =
        store
            .stat(key)
            .orElseThrow(() -> new ObjectNotFoundException(store.location(), key))
            .size();
  }

  @Override
  public long getLength() {
    return length;
  }

  @Override
  public SeekableInputStream newStream() {
    return new RangeStream();
  }

  @Override
  public String toString() {
    return store.location() + "/" + key;
  }

  private final class RangeStream extends SeekableInputStream {
    private long position;
    private byte[] window = new byte[0];
    private long windowStart;

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void seek(long newPosition) throws IOException {
      if (newPosition < 0 || newPosition > length) {
        throw new EOFException(DataErrors.truncatedFile(key, newPosition, length));
      }
      position = newPosition;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (position >= length) {
        return -1;
      }
      int n = (int) Math.min(len, length - position);
      if (!inWindow(position)) {
        if (n >= WINDOW) {
          byte[] direct = store.readRange(key, position, n);
          if (direct.length == 0) {
            throw new EOFException(DataErrors.truncatedFile(key, position, length));
          }
          System.arraycopy(direct, 0, b, off, direct.length);
          position += direct.length;
          return direct.length;
        }
        fill(position);
      }
      int offsetInWindow = (int) (position - windowStart);
      int copied = Math.min(n, window.length - offsetInWindow);
      System.arraycopy(window, offsetInWindow, b, off, copied);
      position += copied;
      return copied;
    }

    private boolean inWindow(long pos) {
      return pos >= windowStart && pos < windowStart + window.length;
    }

    private void fill(long pos) throws IOException {
      long start = Math.max(0, Math.min(pos, length - WINDOW));
      int size = (int) Math.min(WINDOW, length - start);
      window = store.readRange(key, start, size);
      windowStart = start;
      if (!inWindow(pos)) {
        throw new EOFException(DataErrors.truncatedFile(key, pos, length));
      }
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(bytes, 0, bytes.length);
    }

    @Override
    public void readFully(byte[] bytes, int start, int len) throws IOException {
      int done = 0;
      while (done < len) {
        int n = read(bytes, start + done, len - done);
        if (n < 0) {
          throw new EOFException(DataErrors.truncatedFile(key, position, length));
        }
        done += n;
      }
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
      int len = buf.remaining();
      if (len == 0) {
        return 0;
      }
      byte[] bytes = new byte[Math.min(len, WINDOW)];
      int n = read(bytes, 0, bytes.length);
      if (n > 0) {
        buf.put(bytes, 0, n);
      }
      return n;
    }

    @Override
    public void readFully(ByteBuffer buf) throws IOException {
      if (buf.hasArray()) {
        int len = buf.remaining();
        readFully(buf.array(), buf.arrayOffset() + buf.position(), len);
        buf.position(buf.position() + len);
        return;
      }
      byte[] bytes = new byte[buf.remaining()];
      readFully(bytes, 0, bytes.length);
      buf.put(bytes);
    }

    @Override
    public void close() {
      window = new byte[0];
    }
  }
}
