package dev.tributary.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * An {@link ObjectStore} on a local (or locally mounted) file system: key {@code a/b} is the file
 * {@code <root>/a/b}.
 *
 * <p>Atomicity: every write first goes to a hidden temporary file in the target's directory
 * ({@value #TEMP_PREFIX}{@code <uuid>.tmp}), which is fsynced and then published in one step:
 * {@link #put} and {@link ObjectWriter#close()} by an atomic rename that replaces the target,
 * {@link #putIfAbsent} by {@link Files#createLink hard-linking} the target to the temporary file,
 * which the kernel does atomically and fails if the target exists. A rename would silently replace
 * a concurrent winner, so it is never used for put-if-absent. Temporary files are invisible to
 * reads and listings; a crash can leave one behind, which is harmless.
 *
 * <p>Directories are created as needed and never removed (removing one could race with a concurrent
 * write into it).
 */
final class LocalObjectStore implements ObjectStore {
  static final String TEMP_PREFIX = ".tributary-tmp-";
  private static final String TEMP_SUFFIX = ".tmp";

  private final Path root;
  private final String location;

  LocalObjectStore(Path root) throws IOException {
    this.root = root.toAbsolutePath().normalize();
    this.location = this.root.toString();
    Files.createDirectories(this.root);
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public byte[] read(String key) throws IOException {
    Path file = resolve(key);
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw readFailure(file, key, e);
    }
  }

  @Override
  public byte[] readRange(String key, long offset, int length) throws IOException {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(StorageErrors.negativeRange(key, offset, length));
    }
    Path file = resolve(key);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long available = Math.max(0, channel.size() - offset);
      ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(length, available));
      while (buffer.hasRemaining()) {
        if (channel.read(buffer, offset + buffer.position()) < 0) {
          break;
        }
      }
      return buffer.position() == buffer.capacity()
          ? buffer.array()
          : Arrays.copyOf(buffer.array(), buffer.position());
    } catch (IOException e) {
      throw readFailure(file, key, e);
    }
  }

  @Override
  public InputStream open(String key) throws IOException {
    Path file = resolve(key);
    if (Files.isDirectory(file)) {
      throw new ObjectNotFoundException(location, key);
    }
    try {
      return Files.newInputStream(file);
    } catch (IOException e) {
      throw readFailure(file, key, e);
    }
  }

  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    Path file = resolve(key);
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      return attributes.isRegularFile() ? Optional.of(info(key, attributes)) : Optional.empty();
    } catch (IOException e) {
      if (Files.isRegularFile(file)) {
        throw new IOException(StorageErrors.localIo("stat", key, location, e), e);
      }
      return Optional.empty();
    }
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
    String dirKey = prefix.substring(0, prefix.lastIndexOf('/') + 1);
    Path start = dirKey.isEmpty() ? root : root.resolve(dirKey).normalize();
    if (!start.startsWith(root) || !Files.isDirectory(start)) {
      return List.of();
    }
    List<ObjectInfo> out = new ArrayList<>();
    walk(start, dirKey, prefix, startAfter, out, Integer.MAX_VALUE);
    out.sort((a, b) -> ObjectKeys.ORDER.compare(a.key(), b.key()));
    return out;
  }

  @Override
  public List<ObjectInfo> sample(String prefix, int limit) throws IOException {
    ObjectKeys.checkLimit(limit);
    String dirKey = prefix.substring(0, prefix.lastIndexOf('/') + 1);
    Path start = dirKey.isEmpty() ? root : root.resolve(dirKey).normalize();
    if (!start.startsWith(root) || !Files.isDirectory(start)) {
      return List.of();
    }
    List<ObjectInfo> out = new ArrayList<>();
    walk(start, dirKey, prefix, null, out, limit);
    out.sort((a, b) -> ObjectKeys.ORDER.compare(a.key(), b.key()));
    return out;
  }

  /**
   * Collects the objects under {@code dir} (whose keys start with {@code dirKey}) that match. Names
   * are filtered before any file is stat-ed, and a subtree is entered only if some key in it can
   * match: a Delta log listing after a checkpoint then costs one stat per new commit, not one per
   * file of the log.
   */
  private void walk(
      Path dir, String dirKey, String prefix, String startAfter, List<ObjectInfo> out, int limit)
      throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        if (out.size() >= limit) {
          return;
        }
        String name = entry.getFileName().toString();
        String key = dirKey + name;
        String asDir = key + "/";
        boolean underPrefix = key.startsWith(prefix) || prefix.startsWith(asDir);
        // Whether the entry, as a file or as a directory, can hold a key after startAfter: every
        // key under a directory starts with asDir, so either asDir sorts after startAfter or
        // startAfter lies inside the directory.
        boolean afterStart =
            startAfter == null
                || ObjectKeys.ORDER.compare(asDir, startAfter) > 0
                || startAfter.startsWith(asDir);
        if (isTemp(name) || !underPrefix || !afterStart) {
          continue;
        }
        BasicFileAttributes attributes;
        try {
          attributes =
              Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
          continue; // deleted while we listed
        }
        if (attributes.isDirectory()) {
          walk(entry, asDir, prefix, startAfter, out, limit);
        } else if (attributes.isRegularFile()
            && key.startsWith(prefix)
            && (startAfter == null || ObjectKeys.ORDER.compare(key, startAfter) > 0)) {
          out.add(info(key, attributes));
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      // The directory was replaced or removed while we listed: it holds nothing to report.
    }
  }

  @Override
  public void put(String key, byte[] data) throws IOException {
    Path target = resolve(key);
    Path temp = writeTemp(key, target, data);
    try {
      publish(key, temp, target);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  @Override
  public boolean putIfAbsent(String key, byte[] data) throws IOException {
    Path target = resolve(key);
    Path temp = writeTemp(key, target, data);
    try {
      Files.createLink(target, temp);
    } catch (FileAlreadyExistsException e) {
      Files.deleteIfExists(temp);
      if (Files.isDirectory(target)) {
        throw new IOException(
            StorageErrors.localPathConflict(key, location, "objects exist under '" + key + "/'"),
            e);
      }
      return false;
    } catch (UnsupportedOperationException e) {
      Files.deleteIfExists(temp);
      throw new IOException(StorageErrors.localHardLinksUnsupported(location, e.toString()), e);
    } catch (IOException e) {
      // link(2) is atomic: when it fails, the target was not created by this call.
      Files.deleteIfExists(temp);
      throw new IOException(StorageErrors.localIo("put-if-absent", key, location, e), e);
    }
    syncDirectory(target.getParent());
    try {
      Files.delete(temp);
    } catch (IOException e) {
      // The object is published; a leftover temporary file is invisible and harmless.
    }
    return true;
  }

  @Override
  public ObjectWriter create(String key) throws IOException {
    Path target = resolve(key);
    Path temp = newTemp(key, target);
    return new LocalObjectWriter(
        key,
        location,
        FileChannel.open(temp, StandardOpenOption.WRITE),
        () -> {
          try {
            publish(key, temp, target);
          } finally {
            Files.deleteIfExists(temp);
          }
        },
        () -> Files.deleteIfExists(temp));
  }

  @Override
  public void delete(String key) throws IOException {
    Files.deleteIfExists(resolve(key));
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "LocalObjectStore[" + location + "]";
  }

  private Path resolve(String key) {
    ObjectKeys.check(key);
    for (String segment : key.split("/")) {
      if (segment.startsWith(TEMP_PREFIX)) {
        throw new IllegalArgumentException(StorageErrors.reservedLocalKey(key, location));
      }
    }
    Path path = root.resolve(key).normalize();
    if (!path.startsWith(root) || path.equals(root)) {
      // ObjectKeys.check already rules this out; kept as a last line of defence.
      throw new IllegalArgumentException(
          StorageErrors.invalidKey(key, "it resolves outside " + location));
    }
    return path;
  }

  private Path newTemp(String key, Path target) throws IOException {
    Path dir = target.getParent();
    try {
      Files.createDirectories(dir);
    } catch (FileAlreadyExistsException e) {
      String object =
          e.getFile() == null ? "a parent of it" : "'" + keyOf(Path.of(e.getFile())) + "'";
      throw new IOException(
          StorageErrors.localPathConflict(key, location, object + " is an object"), e);
    }
    Path temp = dir.resolve(TEMP_PREFIX + UUID.randomUUID() + TEMP_SUFFIX);
    Files.createFile(temp);
    return temp;
  }

  private Path writeTemp(String key, Path target, byte[] data) throws IOException {
    Path temp = newTemp(key, target);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(data);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(temp);
      // The JDK's message is only the errno text ("No space left on device"): name the object.
      throw new IOException(StorageErrors.localIo("write", key, location, e), e);
    } catch (RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    return temp;
  }

  private void publish(String key, Path temp, Path target) throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (FileSystemException e) {
      if (Files.isDirectory(target)) {
        throw new IOException(
            StorageErrors.localPathConflict(key, location, "objects exist under '" + key + "/'"),
            e);
      }
      throw new IOException(StorageErrors.localIo("write", key, location, e), e);
    }
    syncDirectory(target.getParent());
  }

  /** Makes a new directory entry durable; without it a power loss can forget a commit. */
  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some platforms cannot open directories for syncing; the data itself was synced.
    }
  }

  /** A missing file, a directory or a file where a parent directory should be: all "not found". */
  private IOException readFailure(Path file, String key, IOException e) {
    return Files.isRegularFile(file)
        ? new IOException(StorageErrors.localIo("read", key, location, e), e)
        : new ObjectNotFoundException(location, key);
  }

  private String keyOf(Path path) {
    return root.relativize(path).toString().replace(path.getFileSystem().getSeparator(), "/");
  }

  private static boolean isTemp(String fileName) {
    return fileName.startsWith(TEMP_PREFIX) && fileName.endsWith(TEMP_SUFFIX);
  }

  private static ObjectInfo info(String key, BasicFileAttributes attributes) {
    return new ObjectInfo(key, attributes.size(), attributes.lastModifiedTime().toInstant());
  }

  /** An action that may fail with an I/O error. */
  @FunctionalInterface
  interface IoAction {
    void run() throws IOException;
  }
}
