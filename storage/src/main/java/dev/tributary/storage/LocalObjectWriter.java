package dev.tributary.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * Streams into a local temporary file; {@link #close()} fsyncs it and runs the store's publish step
 * (an atomic rename onto the key), {@link #abort()} deletes it. Not thread-safe, like any {@link
 * java.io.OutputStream}.
 */
final class LocalObjectWriter extends ObjectWriter {
  private static final int BUFFER_SIZE = 64 * 1024;

  private final String key;
  private final String location;
  private final FileChannel channel;
  private final LocalObjectStore.IoAction publish;
  private final LocalObjectStore.IoAction discard;
  private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_SIZE);
  private long position;
  private boolean finished;
  private IOException failure;

  /**
   * @param key the object's key and {@code location} its store's root, which the errors name
   */
  LocalObjectWriter(
      String key,
      String location,
      FileChannel channel,
      LocalObjectStore.IoAction publish,
      LocalObjectStore.IoAction discard) {
    this.key = key;
    this.location = location;
    this.channel = channel;
    this.publish = publish;
    this.discard = discard;
  }

  @Override
  public void write(int b) throws IOException {
    ensureOpen();
    if (!buffer.hasRemaining()) {
      try {
        flushBuffer();
      } catch (IOException e) {
        failure = named(e);
        throw failure;
      }
    }
    buffer.put((byte) b);
    position++;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    ensureOpen();
    Objects.checkFromIndexSize(offset, length, bytes.length);
    try {
      writeChecked(bytes, offset, length);
    } catch (IOException e) {
      failure = named(e);
      throw failure;
    }
    position += length;
  }

  private void writeChecked(byte[] bytes, int offset, int length) throws IOException {
    if (length >= BUFFER_SIZE) {
      flushBuffer();
      ByteBuffer direct = ByteBuffer.wrap(bytes, offset, length);
      while (direct.hasRemaining()) {
        channel.write(direct);
      }
    } else {
      if (buffer.remaining() < length) {
        flushBuffer();
      }
      buffer.put(bytes, offset, length);
    }
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public void abort() throws IOException {
    if (finished) {
      return;
    }
    finished = true;
    try {
      channel.close();
    } finally {
      discard.run();
    }
  }

  @Override
  public void close() throws IOException {
    if (finished) {
      return;
    }
    finished = true;
    try {
      if (failure != null) {
        throw new IOException(
            "Object was not written: an earlier write failed (" + failure.getMessage() + ")",
            failure);
      }
      try {
        flushBuffer();
        channel.force(true);
      } catch (IOException e) {
        throw named(e);
      }
      channel.close();
      publish.run();
    } catch (IOException | RuntimeException e) {
      try {
        channel.close();
        discard.run();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * The failure of a write to the file, naming the object: the JDK's message is only the errno text
   * ("No space left on device").
   */
  private IOException named(IOException e) {
    return new IOException(StorageErrors.localIo("write", key, location, e), e);
  }

  private void flushBuffer() throws IOException {
    buffer.flip();
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
    buffer.clear();
  }

  private void ensureOpen() throws IOException {
    if (failure != null) {
      throw new IOException("Cannot write: an earlier write failed", failure);
    }
    if (finished) {
      throw new IOException("Write after close() or abort() of an object writer");
    }
  }
}
