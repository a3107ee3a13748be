package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.internal.CheckpointErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.LoggerFactory;

/**
 * The RocksDB working copy of one operator's state. It is a cache: always rebuilt from the
 * checkpoint on open, never the source of truth, so writes skip RocksDB's write-ahead log.
 */
final class LocalDb implements AutoCloseable {
  /** Marks a directory as ours, so that reopening may delete its contents. */
  static final String MARKER = ".tributary-state-store";

  // Opening deletes the directory's contents, so two open stores must never share one.
  private static final Map<Path, String> OPEN_DIRS = new ConcurrentHashMap<>();

  static {
    RocksDB.loadLibrary();
  }

  private final String operatorId;
  private final Path dir;
  private final BloomFilter filter;
  private final Options options;
  private final WriteOptions writeOptions;
  private final RocksDB db;

  private LocalDb(
      String operatorId,
      Path dir,
      BloomFilter filter,
      Options options,
      WriteOptions writeOptions,
      RocksDB db) {
    this.operatorId = operatorId;
    this.dir = dir;
    this.filter = filter;
    this.options = options;
    this.writeOptions = writeOptions;
    this.db = db;
  }

  /** Creates an empty database in {@code dir}, deleting what a previous store left there. */
  static LocalDb create(String operatorId, Path dir) throws IOException {
    Path key = dir.toAbsolutePath().normalize();
    String holder = OPEN_DIRS.putIfAbsent(key, operatorId);
    if (holder != null) {
      throw CheckpointErrors.localDirInUse(operatorId, key.toString(), holder);
    }
    try {
      return createIn(operatorId, key);
    } catch (IOException | RuntimeException e) {
      OPEN_DIRS.remove(key);
      throw e;
    }
  }

  private static LocalDb createIn(String operatorId, Path dir) throws IOException {
    prepare(dir);
    BloomFilter filter = new BloomFilter(10);
    Options options =
        new Options()
            .setCreateIfMissing(true)
            // The copy is deleted on close, so flushing memtables at shutdown is wasted work.
            .setAvoidFlushDuringShutdown(true)
            .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
            .setKeepLogFileNum(1)
            // Native memory per operator: up to three 64 MiB memtables (RocksDB's default size),
            // fewer flushes of short-lived keys; about 20 MB per stateful pipeline in serve
            // (docs/PERFORMANCE.md).
            .setWriteBufferSize(64L << 20)
            .setMaxWriteBufferNumber(3)
            // A local cache of small, mostly random keys: compressing its files costs CPU (on the
            // flush and compaction threads, competing with the pipeline) to save little disk.
            .setCompressionType(CompressionType.NO_COMPRESSION)
            // Most lookups of deduplication and first-seen window keys miss: a Bloom filter answers
            // those without reading data blocks.
            .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(filter))
            // ... and the memtables, which hold the keys of the last batches, get one too.
            .setMemtablePrefixBloomSizeRatio(0.1)
            .setMemtableWholeKeyFiltering(true);
    // No WAL: the working copy is rebuilt from the checkpoint after any crash.
    WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
    try {
      RocksDB db = RocksDB.open(options, dir.resolve("db").toString());
      return new LocalDb(operatorId, dir, filter, options, writeOptions, db);
    } catch (RocksDBException e) {
      writeOptions.close();
      options.close();
      filter.close();
      throw new IOException(
          "State of operator "
              + operatorId
              + ": cannot create the local"
              + " working copy in "
              + dir
              + ": "
              + e.getMessage(),
          e);
    }
  }

  void put(byte[] key, byte[] value) {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "write", e);
    }
  }

  void delete(byte[] key) {
    try {
      db.delete(writeOptions, key);
    } catch (RocksDBException e) {
      throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "write", e);
    }
  }

  /** Deletes every key in [{@code from}, {@code to}) with one range tombstone. */
  void deleteRange(byte[] from, byte[] to) {
    try {
      db.deleteRange(writeOptions, from, to);
    } catch (RocksDBException e) {
      throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "write", e);
    }
  }

  /** The values of {@code keys} (null where absent), in one native call. */
  List<byte[]> multiGet(List<byte[]> keys) {
    try {
      return db.multiGetAsList(keys);
    } catch (RocksDBException e) {
      throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "read", e);
    }
  }

  byte[] get(byte[] key) {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "read", e);
    }
  }

  /** A new write batch; nothing is visible until {@link Batch#write()}. */
  Batch batch() {
    return new Batch();
  }

  /** A RocksDB write batch whose errors are reported like every local state error. */
  final class Batch implements AutoCloseable {
    private final WriteBatch batch = new WriteBatch();

    void put(byte[] key, byte[] value) {
      try {
        batch.put(key, value);
      } catch (RocksDBException e) {
        throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "write", e);
      }
    }

    void delete(byte[] key) {
      try {
        batch.delete(key);
      } catch (RocksDBException e) {
        throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "write", e);
      }
    }

    int count() {
      return batch.count();
    }

    /** Applies the batch and empties it, so it can be reused. */
    void write() {
      try {
        db.write(writeOptions, batch);
        batch.clear();
      } catch (RocksDBException e) {
        throw CheckpointErrors.localStateFailed(operatorId, dir.toString(), "write", e);
      }
    }

    @Override
    public void close() {
      batch.close();
    }
  }

  /** A new iterator over the committed state; the caller closes it. */
  RocksIterator iterator() {
    return db.newIterator();
  }

  Path dir() {
    return dir;
  }

  @Override
  public void close() {
    db.close();
    writeOptions.close();
    options.close();
    filter.close();
    try {
      deleteContents(dir);
    } catch (IOException e) {
      // The data is in the checkpoint; a leftover local copy only costs disk until reopened.
      LoggerFactory.getLogger(LocalDb.class)
          .warn("Could not delete the state working copy in {}: {}", dir, e.toString());
    } finally {
      OPEN_DIRS.remove(dir);
    }
  }

  private static void prepare(Path dir) throws IOException {
    Files.createDirectories(dir);
    boolean ours = Files.exists(dir.resolve(MARKER));
    try (Stream<Path> entries = Files.list(dir)) {
      if (!ours && entries.findAny().isPresent()) {
        throw CheckpointErrors.foreignLocalDir(dir.toString(), MARKER);
      }
    }
    deleteContents(dir);
    Files.createFile(dir.resolve(MARKER));
  }

  /** Deletes everything inside {@code dir} (keeping {@code dir} itself). */
  private static void deleteContents(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        if (!p.equals(dir)) {
          Files.delete(p);
        }
      }
    }
  }
}
