package dev.tributary.service.testing;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.PlannedBatch;
import dev.tributary.service.engine.RangeRevokedException;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.SourceInput;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * A Kafka topic in memory behind the engine's {@link Source} SPI, for tests that attack the engine
 * in milliseconds: partitions of values (offset = index), planned from the previous range with a
 * per-partition rate limit, read exactly. Several sources may share one {@link Log} (the topic) and
 * each own a subset of its partitions ({@link #owning}), as consumer-group members do: a partition
 * taken away while a range of it is read ends the read with a {@link RangeRevokedException}, and a
 * partition a plan sees for the first time is "unpinned" input, as with Kafka.
 */
public final class InMemorySource implements Source {
  /** The topic: its partitions' values, appendable from any thread. */
  public static final class Log {
    private final String topic;
    private final Map<Integer, List<byte[]>> partitions = new ConcurrentHashMap<>();
    private final Map<Integer, List<byte[]>> keys = new ConcurrentHashMap<>();
    // Record timestamps set by appendAt, by partition and offset; others carry none (-1).
    private final Map<Integer, Map<Long, Long>> timestamps = new ConcurrentHashMap<>();

    public Log(String topic, int partitions) {
      this.topic = topic;
      for (int p = 0; p < partitions; p++) {
        this.partitions.put(p, Collections.synchronizedList(new ArrayList<>()));
        this.keys.put(p, Collections.synchronizedList(new ArrayList<>()));
      }
    }

    public String topic() {
      return topic;
    }

    /** Appends a value (null: a tombstone) to a partition; returns its offset. */
    public long append(int partition, String value) {
      return append(partition, null, value);
    }

    /** Appends a record with a key (may be null) to a partition; returns its offset. */
    public long append(int partition, String key, String value) {
      List<byte[]> values = partitions.get(partition);
      synchronized (values) {
        keys.get(partition).add(key == null ? null : key.getBytes(StandardCharsets.UTF_8));
        values.add(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        return values.size() - 1;
      }
    }

    /**
     * Appends a value with a Kafka record timestamp ({@code _kafka_timestamp}); returns its offset.
     */
    public long appendAt(int partition, String value, long timestampMs) {
      long offset = append(partition, value);
      timestamps
          .computeIfAbsent(partition, p -> new ConcurrentHashMap<>())
          .put(offset, timestampMs);
      return offset;
    }

    long timestamp(int partition, long offset) {
      return timestamps.getOrDefault(partition, Map.of()).getOrDefault(offset, -1L);
    }

    /** The partition's end offset. */
    public long end(int partition) {
      return partitions.get(partition).size();
    }

    /** Every partition. */
    public Set<SourcePartition> all() {
      Set<SourcePartition> out = new java.util.TreeSet<>();
      partitions.keySet().forEach(p -> out.add(new SourcePartition(topic, p)));
      return out;
    }

    byte[] value(int partition, long offset) {
      return partitions.get(partition).get((int) offset);
    }

    byte[] key(int partition, long offset) {
      List<byte[]> values = partitions.get(partition);
      synchronized (values) {
        return keys.get(partition).get((int) offset);
      }
    }
  }

  private final Log log;
  private final long maxPerPartition;
  private final Supplier<Set<SourcePartition>> owned;
  private final boolean shared;
  private Map<SourcePartition, Long> ceiling = Map.of();
  private volatile boolean caughtUp;

  private InMemorySource(
      Log log, long maxPerPartition, Supplier<Set<SourcePartition>> owned, boolean shared) {
    this.log = log;
    this.maxPerPartition = maxPerPartition;
    this.owned = owned;
    this.shared = shared;
  }

  /** A source that reads every partition of {@code log}, at most {@code max} offsets each batch. */
  public static InMemorySource of(Log log, long maxPerPartition) {
    return new InMemorySource(log, maxPerPartition, log::all, false);
  }

  /**
   * A consumer-group member's source: it plans and reads only the partitions {@code owned} returns
   * (asked again at every plan and every record).
   */
  public static InMemorySource owning(
      Log log, long maxPerPartition, Supplier<Set<SourcePartition>> owned) {
    return new InMemorySource(log, maxPerPartition, owned, true);
  }

  @Override
  public void boundToAvailableNow() {
    Map<SourcePartition, Long> ends = new TreeMap<>();
    log.all().forEach(p -> ends.put(p, log.end(p.partition())));
    ceiling = ends;
  }

  @Override
  public PlannedBatch plan(BatchRange previous, boolean firstBatch) {
    Map<SourcePartition, Long> from = previous.endOffsets();
    Map<SourcePartition, OffsetRange> ranges = new TreeMap<>();
    List<BatchProgress.PartitionProgress> progress = new ArrayList<>();
    boolean input = false;
    for (SourcePartition p : new java.util.TreeSet<>(owned.get())) {
      long start = from.getOrDefault(p, 0L);
      long latest = ceiling.getOrDefault(p, log.end(p.partition()));
      long end = Math.max(start, Math.min(latest, start + maxPerPartition));
      ranges.put(p, new OffsetRange(start, end));
      progress.add(
          new BatchProgress.PartitionProgress(p.topic(), p.partition(), start, end, latest));
      input |= end > start || (shared && !from.containsKey(p));
    }
    return new PlannedBatch(new BatchRange(ranges, Map.of()), input, progress);
  }

  @Override
  public List<String> read(BatchRange range, boolean inFixedOrder, SourceInput input)
      throws Exception {
    for (Map.Entry<SourcePartition, OffsetRange> e : range.offsets().entrySet()) {
      SourcePartition p = e.getKey();
      for (long o = e.getValue().start(); o < e.getValue().end(); o++) {
        if (shared && !owned.get().contains(p)) {
          throw new RangeRevokedException(p + " was revoked while batch read it");
        }
        long timestamp = log.timestamp(p.partition(), o);
        input.record(
            timestamp < 0
                ? new ConsumerRecord<>(
                    p.topic(),
                    p.partition(),
                    o,
                    log.key(p.partition(), o),
                    log.value(p.partition(), o))
                : new ConsumerRecord<>(
                    p.topic(),
                    p.partition(),
                    o,
                    timestamp,
                    TimestampType.CREATE_TIME,
                    ConsumerRecord.NULL_SIZE,
                    ConsumerRecord.NULL_SIZE,
                    log.key(p.partition(), o),
                    log.value(p.partition(), o),
                    new RecordHeaders(),
                    Optional.empty()));
      }
    }
    return List.of();
  }

  /**
   * The continuous trigger's read: what the log holds from each start (at most {@code
   * maxPerPartition} offsets), at once; when nothing is there, waits the interval and says so
   * ({@link #caughtUp}).
   */
  @Override
  public BatchRange readFor(BatchRange planned, Duration interval, SourceInput input)
      throws Exception {
    Map<SourcePartition, OffsetRange> ranges = new TreeMap<>();
    boolean any = false;
    for (Map.Entry<SourcePartition, OffsetRange> e : planned.offsets().entrySet()) {
      long start = e.getValue().start();
      long end =
          Math.max(start, Math.min(log.end(e.getKey().partition()), start + maxPerPartition));
      ranges.put(e.getKey(), new OffsetRange(start, end));
      any |= end > start;
    }
    if (!any) {
      caughtUp = true;
      Thread.sleep(interval.toMillis());
    }
    BatchRange read = new BatchRange(ranges, planned.facts());
    read(read, false, input);
    return read;
  }

  /**
   * Whether a continuous read found nothing after the starts it was given: every batch before it
   * committed, and the log held nothing more.
   */
  public boolean caughtUp() {
    return caughtUp;
  }

  @Override
  public Map<String, String> commitInfo(BatchRange range) {
    StringBuilder offsets = new StringBuilder();
    range
        .offsets()
        .forEach(
            (p, r) ->
                offsets
                    .append(offsets.length() == 0 ? "" : ",")
                    .append(p.topic())
                    .append('/')
                    .append(p.partition())
                    .append(':')
                    .append(r.start())
                    .append('-')
                    .append(r.end()));
    return Map.of("offsets", offsets.toString());
  }

  @Override
  public String describe(BatchRange range) {
    return range.offsets().toString();
  }

  @Override
  public void close() {}
}
