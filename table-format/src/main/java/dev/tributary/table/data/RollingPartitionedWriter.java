package dev.tributary.table.data;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.parquet.schema.MessageType;

/**
 * The {@link PartitionedDataWriter}: one {@link OpenDataFile} per partition seen, published and
 * replaced when it reaches the target size. Consecutive rows of the same partition (the common
 * case) skip the partition lookup: their raw partition values are compared with the previous row's.
 *
 * <p>Memory: every open file buffers its current row group. To bound memory when rows spread over
 * very many partitions, at most {@link #DEFAULT_MAX_OPEN_FILES} files are open at once; opening one
 * more first publishes the least recently used file (smaller files, which compaction merges later,
 * rather than running out of memory).
 */
final class RollingPartitionedWriter implements PartitionedDataWriter {
  static final int DEFAULT_MAX_OPEN_FILES = 256;

  private enum State {
    OPEN,
    FINISHED,
    ABORTED,
    FAILED
  }

  private final ObjectStore store;
  private final StructType schema;
  private final List<String> partitionColumns;
  private final int[] partitionIndexes;
  private final StructField[] partitionFields;
  private final DataWriteOptions options;
  private final MessageType fileSchema;
  private final String extension;
  private final int maxOpenFiles;

  /** In access order, so the first entry is the least recently used file. */
  private final Map<List<String>, OpenDataFile> open = new LinkedHashMap<>(16, 0.75f, true);

  private final SharedCodecs codecs = new SharedCodecs();
  private final DictionaryMemory dictionaries;
  private final List<DataFile> published = new ArrayList<>();
  private int fileCount;
  private OpenDataFile lastFile;
  private Object[] lastPartitionValues;
  private State state = State.OPEN;

  RollingPartitionedWriter(
      ObjectStore store,
      StructType schema,
      List<String> partitionColumns,
      DataWriteOptions options,
      DictionaryMemory dictionaries) {
    this(store, schema, partitionColumns, options, dictionaries, DEFAULT_MAX_OPEN_FILES);
  }

  RollingPartitionedWriter(
      ObjectStore store,
      StructType schema,
      List<String> partitionColumns,
      DataWriteOptions options,
      DictionaryMemory dictionaries,
      int maxOpenFiles) {
    this.maxOpenFiles = maxOpenFiles;
    this.dictionaries = Objects.requireNonNull(dictionaries, "dictionaries");
    this.store = Objects.requireNonNull(store, "store");
    this.schema = Objects.requireNonNull(schema, "schema");
    this.partitionColumns = List.copyOf(partitionColumns);
    this.options = Objects.requireNonNull(options, "options");
    this.partitionIndexes = new int[this.partitionColumns.size()];
    this.partitionFields = new StructField[this.partitionColumns.size()];
    PartitionValues.checkPartitionColumns(schema, this.partitionColumns);
    for (int i = 0; i < partitionIndexes.length; i++) {
      partitionIndexes[i] = schema.indexOf(this.partitionColumns.get(i));
      partitionFields[i] = schema.fields().get(partitionIndexes[i]);
    }
    this.fileSchema = ParquetSchemas.fileSchema(schema, this.partitionColumns);
    this.extension = OpenDataFile.codec(options.codec()).getExtension() + ".parquet";
  }

  @Override
  public void write(Object[] row) throws IOException {
    requireOpen();
    if (row.length != schema.size()) {
      throw new IllegalArgumentException(
          DataErrors.wrongArity(row.length, schema.size(), schema.fieldNames()));
    }
    OpenDataFile file = fileFor(row);
    boolean full;
    try {
      full = file.write(row);
    } catch (IOException | RuntimeException e) {
      state = State.FAILED;
      throw e;
    }
    if (full) {
      publish(file);
    }
  }

  private OpenDataFile fileFor(Object[] row) throws IOException {
    if (lastFile != null && samePartitionAsLast(row)) {
      return lastFile;
    }
    String[] serialized = new String[partitionIndexes.length];
    Object[] raw = new Object[partitionIndexes.length];
    for (int i = 0; i < partitionIndexes.length; i++) {
      StructField field = partitionFields[i];
      Object value = row[partitionIndexes[i]];
      if (value == null && !field.nullable()) {
        throw new IllegalArgumentException(DataErrors.nullInRequired(field.name()));
      }
      try {
        serialized[i] = PartitionValues.serialize(value, field.type());
      } catch (ClassCastException e) {
        throw new IllegalArgumentException(
            DataErrors.wrongClass(field.name(), field.type(), value), e);
      }
      // Refused before anything is written, so the writer stays usable (RowChecks finds it
      // earlier).
      String problem = PartitionValues.segmentProblem(field.name(), serialized[i]);
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
      raw[i] = value;
    }
    List<String> key = Arrays.asList(serialized);
    OpenDataFile file = open.get(key);
    if (file == null) {
      if (open.size() >= maxOpenFiles) {
        publish(open.values().iterator().next());
      }
      file = openFile(key);
      open.put(key, file);
    }
    lastFile = file;
    lastPartitionValues = raw;
    return file;
  }

  private boolean samePartitionAsLast(Object[] row) {
    for (int i = 0; i < partitionIndexes.length; i++) {
      if (!Objects.equals(row[partitionIndexes[i]], lastPartitionValues[i])) {
        return false;
      }
    }
    return true;
  }

  private OpenDataFile openFile(List<String> key) throws IOException {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < partitionColumns.size(); i++) {
      values.put(partitionColumns.get(i), key.get(i));
    }
    String path =
        PartitionValues.directory(partitionColumns, values)
            + String.format("part-%05d-%s%s", fileCount++, UUID.randomUUID(), extension);
    try {
      return OpenDataFile.open(
          store,
          path,
          key,
          values,
          schema,
          partitionColumns,
          fileSchema,
          options,
          codecs,
          dictionaries);
    } catch (IOException | RuntimeException e) {
      state = State.FAILED;
      throw new IOException(DataErrors.writeFailed(store.location(), path, e), e);
    }
  }

  private void publish(OpenDataFile file) throws IOException {
    open.remove(file.partitionKey);
    if (lastFile == file) {
      lastFile = null;
    }
    try {
      published.add(file.publish());
    } catch (IOException | RuntimeException e) {
      state = State.FAILED;
      file.abort();
      throw new IOException(DataErrors.writeFailed(store.location(), file.key(), e), e);
    }
  }

  @Override
  public List<DataFile> finish() throws IOException {
    requireOpen();
    for (OpenDataFile file : new ArrayList<>(open.values())) {
      publish(file);
    }
    state = State.FINISHED;
    codecs.release();
    return List.copyOf(published);
  }

  @Override
  public void abort() {
    if (state == State.FINISHED || state == State.ABORTED) {
      return;
    }
    for (OpenDataFile file : open.values()) {
      file.abort();
    }
    open.clear();
    lastFile = null;
    state = State.ABORTED;
    codecs.release();
  }

  @Override
  public void close() {
    abort();
  }

  private void requireOpen() {
    if (state != State.OPEN) {
      throw new IllegalStateException(
          DataErrors.writerFailed(state.name().toLowerCase(Locale.ROOT)));
    }
  }
}
