package dev.tributary.table.interop;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A read-only Kernel {@link FileIO} over an {@link ObjectStore}, so Delta Kernel's DefaultEngine
 * reads our tables from any store (local disk or S3) exactly as we wrote them. Kernel sees the
 * table at the synthetic root {@value #ROOT}.
 */
final class ObjectStoreFileIO implements FileIO {
  static final String ROOT = "tributary://store/table";

  private final ObjectStore store;

  ObjectStoreFileIO(ObjectStore store) {
    this.store = store;
  }

  private static String key(String path) {
    String p = path.startsWith(ROOT) ? path.substring(ROOT.length()) : path;
    return p.startsWith("/") ? p.substring(1) : p;
  }

  @Override
  public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
    String key = key(filePath);
    int slash = key.lastIndexOf('/');
    String dir = slash < 0 ? "" : key.substring(0, slash + 1);
    List<FileStatus> out = new ArrayList<>();
    for (ObjectInfo o : store.list(dir)) {
      String rest = o.key().substring(dir.length());
      if (o.key().compareTo(key) >= 0 && !rest.contains("/")) {
        out.add(FileStatus.of(ROOT + "/" + o.key(), o.size(), o.lastModified().toEpochMilli()));
      }
    }
    return Utils.toCloseableIterator(out.iterator());
  }

  @Override
  public FileStatus getFileStatus(String path) throws IOException {
    ObjectInfo o = store.stat(key(path)).orElseThrow(() -> new FileNotFoundException(path));
    return FileStatus.of(path, o.size(), o.lastModified().toEpochMilli());
  }

  @Override
  public String resolvePath(String path) {
    return path;
  }

  @Override
  public boolean mkdirs(String path) {
    return true;
  }

  @Override
  public InputFile newInputFile(String path, long fileSize) {
    return new InputFile() {
      @Override
      public long length() {
        return fileSize;
      }

      @Override
      public String path() {
        return path;
      }

      @Override
      public SeekableInputStream newStream() throws IOException {
        byte[] bytes;
        try {
          bytes = store.read(key(path));
        } catch (ObjectNotFoundException e) {
          throw new FileNotFoundException(path);
        }
        return new BytesStream(bytes);
      }
    };
  }

  @Override
  public OutputFile newOutputFile(String path) {
    throw new UnsupportedOperationException("read-only FileIO: " + path);
  }

  @Override
  public boolean delete(String path) {
    throw new UnsupportedOperationException("read-only FileIO: " + path);
  }

  @Override
  public Optional<String> getConf(String confKey) {
    return Optional.empty();
  }

  @Override
  public void copyFileAtomically(String src, String dst, boolean overwrite) {
    throw new UnsupportedOperationException("read-only FileIO: " + dst);
  }

  private static final class BytesStream extends SeekableInputStream {
    private final byte[] bytes;
    private int pos;

    BytesStream(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public int read() {
      return pos < bytes.length ? bytes[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos >= bytes.length) {
        return -1;
      }
      int n = Math.min(len, bytes.length - pos);
      System.arraycopy(bytes, pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) {
      pos = (int) newPos;
    }

    @Override
    public void readFully(byte[] b, int off, int len) {
      if (read(b, off, len) < len) {
        throw new UncheckedIOException(new EOFException("read past end"));
      }
    }
  }
}
