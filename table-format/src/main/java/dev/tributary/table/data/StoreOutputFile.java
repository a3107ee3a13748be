package dev.tributary.table.data;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectWriter;
import java.io.IOException;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet {@link OutputFile} that streams into {@link ObjectStore#create}: the object appears
 * only when Parquet closes the stream after writing the footer, never half-written. Parquet writes
 * many tiny pieces (page headers, footer fields), so they are gathered in a buffer first.
 */
final class StoreOutputFile implements OutputFile {
  private static final int BUFFER_SIZE = 64 * 1024;

  private final ObjectStore store;
  private final String key;
  private Stream stream;

  StoreOutputFile(ObjectStore store, String key) {
    this.store = store;
    this.key = key;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    if (stream != null) {
      throw new IllegalStateException("data file " + key + " was already created");
    }
    stream = new Stream(store.create(key), key);
    return stream;
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    return create(blockSizeHint);
  }

  @Override
  public boolean supportsBlockSize() {
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return key;
  }

  /** Bytes of the published object; valid once Parquet has closed the stream. */
  long publishedSize() {
    return stream.closedSize;
  }

  /** Discards the object being written; later writes fail and close() publishes nothing. */
  void abort() throws IOException {
    if (stream != null) {
      stream.abort();
    }
  }

  private static final class Stream extends PositionOutputStream {
    private final ObjectWriter writer;
    private final String key;
    private final byte[] buffer = new byte[BUFFER_SIZE];
    private int buffered;
    private boolean aborted;
    private boolean closed;
    private long closedSize = -1;

    Stream(ObjectWriter writer, String key) {
      this.writer = writer;
      this.key = key;
    }

    @Override
    public long getPos() {
      return writer.position() + buffered;
    }

    @Override
    public void write(int b) throws IOException {
      if (buffered == buffer.length) {
        drain();
      }
      buffer[buffered++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (len >= BUFFER_SIZE) {
        drain();
        checkWritable();
        writer.write(b, off, len);
        return;
      }
      if (buffered + len > buffer.length) {
        drain();
      }
      System.arraycopy(b, off, buffer, buffered, len);
      buffered += len;
    }

    private void drain() throws IOException {
      checkWritable();
      if (buffered > 0) {
        writer.write(buffer, 0, buffered);
        buffered = 0;
      }
    }

    private void checkWritable() throws IOException {
      if (aborted || closed) {
        throw new IOException("data file " + key + " was " + (aborted ? "aborted" : "closed"));
      }
    }

    @Override
    public void flush() throws IOException {
      // Deliberately not forwarded: nothing is visible before close, so flushing only costs.
    }

    @Override
    public void close() throws IOException {
      if (aborted || closed) {
        return;
      }
      drain();
      closedSize = writer.position();
      closed = true;
      writer.close();
    }

    void abort() throws IOException {
      if (!aborted && !closed) {
        aborted = true;
        writer.abort();
      }
    }
  }
}
