package dev.tributary.service.stateful;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * How far each source partition of a stateful group-mode pipeline has been read, as one stage-2
 * sub-pipeline learns it from the repartition topic's progress records ({@link
 * ExchangeRecords.Progress}); its {@link #candidate} is the event time the sub-pipeline's watermark
 * follows (docs/DESIGN.md, "The agreed watermark").
 *
 * <p>Per source partition it keeps where its readers have read it to, the latest offset any stage-1
 * batch saw it at, and the maximum event time of the batches that read records of it. A partition
 * whose readers are behind its latest offset is <em>behind</em>: records of it are still to come,
 * possibly older than what faster instances read. The candidate is the maximum event time over all
 * partitions (what Spark's watermark follows over the partitions one batch reads), but never past a
 * behind partition's own maximum, and none while a behind partition has had no event time yet. So
 * which rows are late depends on the stream, not on which instance reads its partitions faster; a
 * partition that is caught up (idle or empty) holds nothing back.
 *
 * <p>The state lives in the sub-pipeline's checkpoint as the state store {@value #OPERATOR},
 * versioned with the batch like the operators' state: a replayed batch starts from the clock its
 * previous batch committed.
 */
final class SourceClock implements AutoCloseable {
  /** The state store's operator id. */
  static final String OPERATOR = "exchange-sources";

  /** No event time yet: no batch read records of the partition that had one. */
  private static final long NONE = Long.MIN_VALUE;

  /** One source partition's progress. */
  private record Entry(long readTo, long latest, long maxMicros) {
    boolean behind() {
      return readTo < latest;
    }

    byte[] encode() {
      return ByteBuffer.allocate(24).putLong(readTo).putLong(latest).putLong(maxMicros).array();
    }

    static Entry decode(byte[] value) {
      ByteBuffer b = ByteBuffer.wrap(value);
      return new Entry(b.getLong(), b.getLong(), b.getLong());
    }
  }

  private final ObjectStore checkpointStore;
  private final Path localDir;
  private final Map<SourcePartition, Entry> partitions = new TreeMap<>();
  private StateStore store;

  /**
   * @param checkpointStore the sub-pipeline's checkpoint store; not closed here
   * @param localDir a directory this clock owns for its store's working copy
   */
  SourceClock(ObjectStore checkpointStore, Path localDir) {
    this.checkpointStore = Objects.requireNonNull(checkpointStore, "checkpointStore");
    this.localDir = Objects.requireNonNull(localDir, "localDir");
  }

  /** Starts batch {@code batchId}: the clock as batch {@code batchId - 1} committed it. */
  void begin(long batchId) throws IOException {
    long version = batchId - 1;
    if (store != null && store.version() == version) {
      store.abort(); // an uncommitted attempt's changes (a retried batch)
      if (store.version() == version) {
        load();
        return;
      }
    }
    if (store != null) {
      store.close();
    }
    store = StateStore.open(checkpointStore, OPERATOR, version, localDir);
    load();
  }

  private void load() {
    partitions.clear();
    try (StateIterator it = store.scan(new byte[0])) {
      while (it.hasNext()) {
        StateEntry e = it.next();
        String key = new String(e.key(), StandardCharsets.UTF_8);
        int cut = key.lastIndexOf('\0');
        partitions.put(
            new SourcePartition(key.substring(0, cut), Integer.parseInt(key.substring(cut + 1))),
            Entry.decode(e.value()));
      }
    }
  }

  /**
   * Takes in what a stage-1 batch read and saw: per source partition, the furthest read-to and
   * latest offsets and the partition's own maximum event time.
   */
  void apply(ExchangeRecords.Progress progress) {
    for (ExchangeRecords.SourcePosition p : progress.partitions()) {
      SourcePartition sp = new SourcePartition(p.topic(), p.partition());
      Entry old = partitions.getOrDefault(sp, new Entry(-1, 0, NONE));
      long max = old.maxMicros();
      // The partition's own maximum, not the batch's: a batch cut behind in one partition must
      // not carry the faster partitions' time into it (docs/DESIGN.md, "The agreed watermark").
      if (p.hadRecords() && p.eventTimeMicros().isPresent()) {
        max = Math.max(max, p.eventTimeMicros().getAsLong());
      }
      Entry updated =
          new Entry(Math.max(old.readTo(), p.readTo()), Math.max(old.latest(), p.latest()), max);
      if (!updated.equals(partitions.get(sp))) {
        partitions.put(sp, updated);
        store.put(
            (sp.topic() + '\0' + sp.partition()).getBytes(StandardCharsets.UTF_8),
            updated.encode());
      }
    }
  }

  /**
   * The event time the watermark may follow (see the class comment): the maximum over the
   * partitions, at most the maximum of each behind partition; empty if no partition has an event
   * time or a behind one has none.
   */
  OptionalLong candidate() {
    long max = NONE;
    long bound = Long.MAX_VALUE;
    for (Entry e : partitions.values()) {
      if (e.behind()) {
        if (e.maxMicros() == NONE) {
          return OptionalLong.empty();
        }
        bound = Math.min(bound, e.maxMicros());
      }
      max = Math.max(max, e.maxMicros());
    }
    return max == NONE ? OptionalLong.empty() : OptionalLong.of(Math.min(max, bound));
  }

  /**
   * Makes the batch's changes version {@code batchId}; now and then deletes the files no version of
   * the last {@value StatefulQuery#VERSIONS_KEPT} needs, as the operators' stores do.
   */
  void commit(long batchId) throws IOException {
    if (!store.commit(batchId)) {
      load(); // an earlier attempt's version was adopted
    }
    if (batchId % StatefulQuery.PURGE_EVERY == 0 && batchId > StatefulQuery.VERSIONS_KEPT) {
      StateStore.purge(checkpointStore, OPERATOR, batchId - StatefulQuery.VERSIONS_KEPT);
    }
  }

  @Override
  public void close() {
    if (store != null) {
      store.close();
      store = null;
    }
  }
}
