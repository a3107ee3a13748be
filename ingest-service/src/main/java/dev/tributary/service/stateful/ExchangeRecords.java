package dev.tributary.service.stateful;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.apache.kafka.common.utils.Utils;

/**
 * The records of a stateful group-mode pipeline's repartition topic (docs/DESIGN.md, "Stateful
 * pipelines in group mode"): the exchange between the stateless steps, which run on the instance
 * that owns a source partition, and the stateful operators, which run on the instance that owns the
 * repartition partition of a row's key.
 *
 * <p>Two kinds of record, told apart by the value's first byte:
 *
 * <ul>
 *   <li>{@link #ROW}: one input row of the stateful operators (after parse, transforms and joins,
 *       checked), its values in input-schema order with the state {@link Codec}. The record key is
 *       the encoding of the row's {@linkplain #keyColumns repartition columns}; the partition is
 *       Kafka's murmur2 of it, so every row of one key lands in one partition.
 *   <li>{@link #SOURCE_PROGRESS}: what the writing batch read ({@link Progress}): the source
 *       partitions it covered, whether each had records and the maximum event time of the rows each
 *       produced, and the source topics' partition counts as the writer knows them; sent to every
 *       partition after the batch's rows. Each partition so learns how far every <em>source</em>
 *       partition has been read, whichever instance reads it, and keeps its watermark behind the
 *       slowest one ({@link SourceClock}): a row is late only against the progress of the whole
 *       stream, never against a faster instance's part of it.
 *   <li>{@link #PROGRESS}: the progress record of earlier versions, with one maximum event time for
 *       the whole batch; still read, each partition the batch read records of getting that maximum
 *       (its meaning then), so a topic written by one is replayed as it was.
 *   <li>{@link #MARKER}: an event time the writing batch saw, sent to every partition (written by
 *       earlier versions, which advanced every partition by the fastest writer; still read, so a
 *       topic written by one is replayed as it was).
 * </ul>
 *
 * <p>The format is versioned by the kind byte alone: a future kind is refused by {@link #decode},
 * never guessed.
 */
public final class ExchangeRecords {
  /** A row of the stateful operators' input. */
  public static final byte ROW = 1;

  /** An event time seen by the writer: advances the partition's maximum event time, no row. */
  public static final byte MARKER = 2;

  /**
   * What a stage-1 batch read, per source partition, with one maximum event time for the batch
   * (written by earlier versions, still read: see {@link Progress}).
   */
  public static final byte PROGRESS = 3;

  /**
   * What a stage-1 batch read, per source partition, each with its own maximum event time ({@link
   * Progress}).
   */
  public static final byte SOURCE_PROGRESS = 4;

  private final int[] keyColumns;
  private final int columns;
  private final int partitions;

  /**
   * @param plan the stateful plan whose input rows are exchanged (after its joins are bound)
   * @param partitions the repartition topic's partition count, >= 1
   */
  public ExchangeRecords(StatefulPlan plan, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
    this.keyColumns = keyColumns(plan);
    this.columns = plan.inputSchema().fields().size();
    this.partitions = partitions;
  }

  /** The repartition topic of a pipeline: {@code tributary-<pipeline>-repartition}. */
  public static String topic(String pipelineId) {
    return "tributary-" + pipelineId + "-repartition";
  }

  /**
   * The input columns rows are partitioned by, so that every stateful key lives in one partition:
   *
   * <ul>
   *   <li>deduplication alone: its keys;
   *   <li>an aggregation (windowed or running): its group-by columns (the window is a function of
   *       the event time and needs no co-location of its own); with deduplication before it, the
   *       columns both key sets share if there are any (exact for both operators), else the
   *       group-by columns: deduplication is then exact for duplicates that agree on the group-by
   *       columns (a re-sent record does), see docs/DESIGN.md;
   *   <li>no key (a global aggregation, a window without group-by): none, every row goes to
   *       partition 0 (one key is one partition: it cannot spread).
   * </ul>
   */
  public static int[] keyColumns(StatefulPlan plan) {
    List<Integer> dedup =
        plan.deduplicates() ? Arrays.stream(plan.dedupColumns()).boxed().toList() : null;
    List<Integer> group =
        plan.aggregates() ? Arrays.stream(plan.groupColumns()).boxed().toList() : null;
    return repartitionBy(dedup, group).stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * The rule of {@link #keyColumns(StatefulPlan)} over column names or indexes.
   *
   * @param dedupKeys the deduplication keys, null without deduplication
   * @param groupBy the aggregation's group-by columns, null without aggregation
   */
  public static <T> List<T> repartitionBy(List<T> dedupKeys, List<T> groupBy) {
    if (groupBy == null) {
      return dedupKeys == null ? List.of() : List.copyOf(dedupKeys);
    }
    if (dedupKeys == null) {
      return List.copyOf(groupBy);
    }
    List<T> shared = groupBy.stream().filter(dedupKeys::contains).toList();
    return shared.isEmpty() ? List.copyOf(groupBy) : shared;
  }

  /** The repartition columns' indexes in the input schema. */
  public int[] keyColumns() {
    return keyColumns.clone();
  }

  /** The repartition topic's partition count this encoder spreads rows over. */
  public int partitions() {
    return partitions;
  }

  /** A record to send: its partition, key (null for markers) and value. */
  public record Outgoing(int partition, byte[] key, byte[] value) {
    public Outgoing {
      Objects.requireNonNull(value, "value");
    }
  }

  /** The record of one input row (values in input-schema order). */
  public Outgoing row(Object[] row) {
    if (row.length != columns) {
      throw new IllegalArgumentException(
          "row has " + row.length + " values, the input schema " + columns);
    }
    byte[] key = Codec.key(row, keyColumns);
    Codec.Writer w = new Codec.Writer();
    w.raw(ROW);
    for (Object value : row) {
      w.value(value);
    }
    return new Outgoing(partitionOf(key), key, w.toBytes());
  }

  /**
   * The partition of a key: murmur2 as Kafka's default partitioner; partition 0 without key
   * columns.
   */
  int partitionOf(byte[] key) {
    return keyColumns.length == 0 ? 0 : Utils.toPositive(Utils.murmur2(key)) % partitions;
  }

  /**
   * One {@link #MARKER} per partition carrying {@code eventTimeMicros}: the record earlier versions
   * wrote instead of {@link #progress}, still decoded (tests write it to replay such a topic).
   */
  public List<Outgoing> markers(long eventTimeMicros) {
    byte[] value = ByteBuffer.allocate(9).put(MARKER).putLong(eventTimeMicros).array();
    List<Outgoing> out = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      out.add(new Outgoing(p, null, value));
    }
    return out;
  }

  /**
   * The progress records of one stage-1 batch, one per partition.
   *
   * @see Progress
   */
  public List<Outgoing> progress(Progress progress) {
    byte[] value = progress.encode();
    List<Outgoing> out = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      out.add(new Outgoing(p, null, value));
    }
    return out;
  }

  /** A decoded exchange record. */
  public sealed interface Decoded permits Row, Marker, Progress {}

  /** A row, values in input-schema order. */
  public record Row(Object[] values) implements Decoded {}

  /** An event time the writer saw (an earlier version's progress record). */
  public record Marker(long eventTimeMicros) implements Decoded {}

  /**
   * One source partition as a stage-1 batch saw it.
   *
   * @param readTo where the batch's range of it ends (the next offset to read), -1 if the batch did
   *     not cover it (another instance reads it)
   * @param hadRecords whether the batch's range of it held records
   * @param latest the partition's latest offset when the batch was planned (capped at the run's
   *     ceiling with a bounded trigger): where its readers must get to
   * @param eventTimeMicros the maximum event time of the rows the batch produced from this
   *     partition's records (empty: none). Per partition, not per batch: with {@code
   *     max-offsets-per-trigger} a batch cuts its partitions at different event times, and a
   *     partition cut behind must hold the watermark at its own maximum (docs/DESIGN.md, "The
   *     agreed watermark")
   */
  public record SourcePosition(
      String topic,
      int partition,
      long readTo,
      boolean hadRecords,
      long latest,
      OptionalLong eventTimeMicros) {
    public SourcePosition {
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(eventTimeMicros, "eventTimeMicros");
      if (partition < 0) {
        throw new IllegalArgumentException("partition " + partition);
      }
    }

    /** A partition whose rows in the batch had no event time (or that the batch did not read). */
    public SourcePosition(
        String topic, int partition, long readTo, boolean hadRecords, long latest) {
      this(topic, partition, readTo, hadRecords, latest, OptionalLong.empty());
    }
  }

  /**
   * What one stage-1 batch read and saw: sent to every repartition partition after the batch's
   * rows, in the same transaction ({@link SourceClock} takes it in).
   *
   * @param partitions every source partition the writer knows of: those its batch covered with
   *     where it read them to and their rows' maximum event time, and the others with only their
   *     latest offset
   */
  public record Progress(List<SourcePosition> partitions) implements Decoded {
    public Progress {
      partitions = List.copyOf(partitions);
    }

    /** The maximum event time of the batch's rows, over all its partitions (empty: none). */
    public OptionalLong eventTimeMicros() {
      return partitions.stream()
          .map(SourcePosition::eventTimeMicros)
          .filter(OptionalLong::isPresent)
          .mapToLong(OptionalLong::getAsLong)
          .max();
    }

    /**
     * {@code [4][topics: int n, n x (int length, UTF-8 name)][partitions: int m, m x (int topic
     * index, int partition, long readTo, 0|1 had records, long latest, 0|1 has time, long time if
     * has time)]}.
     */
    byte[] encode() {
      List<String> names = partitions.stream().map(SourcePosition::topic).distinct().toList();
      List<byte[]> encoded = names.stream().map(n -> n.getBytes(StandardCharsets.UTF_8)).toList();
      int size = 1 + 4 + 4 + partitions.size() * 34;
      for (byte[] n : encoded) {
        size += 4 + n.length;
      }
      ByteBuffer b = ByteBuffer.allocate(size).put(SOURCE_PROGRESS);
      b.putInt(names.size());
      for (byte[] name : encoded) {
        b.putInt(name.length).put(name);
      }
      b.putInt(partitions.size());
      for (SourcePosition p : partitions) {
        b.putInt(names.indexOf(p.topic())).putInt(p.partition()).putLong(p.readTo());
        b.put((byte) (p.hadRecords() ? 1 : 0)).putLong(p.latest());
        b.put((byte) (p.eventTimeMicros().isPresent() ? 1 : 0));
        if (p.eventTimeMicros().isPresent()) {
          b.putLong(p.eventTimeMicros().getAsLong());
        }
      }
      return Arrays.copyOf(b.array(), b.position());
    }

    /**
     * A {@link #SOURCE_PROGRESS} record, or an earlier version's {@link #PROGRESS} record: {@code
     * [3][has time: 0|1][time: 8 bytes if has time][topics][partitions: m x (int topic index, int
     * partition, long readTo, 0|1 had records, long latest)]}, whose one time stood for every
     * partition the batch read records of, and still does.
     */
    static Progress decode(byte[] value) {
      ByteBuffer b = ByteBuffer.wrap(value, 1, value.length - 1);
      boolean perPartition = value[0] == SOURCE_PROGRESS;
      OptionalLong batchTime = OptionalLong.empty();
      if (!perPartition && b.get() == 1) {
        batchTime = OptionalLong.of(b.getLong());
      }
      int n = b.getInt();
      List<String> names = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        byte[] name = new byte[b.getInt()];
        b.get(name);
        names.add(new String(name, StandardCharsets.UTF_8));
      }
      int m = b.getInt();
      List<SourcePosition> partitions = new ArrayList<>(m);
      for (int i = 0; i < m; i++) {
        String topic = names.get(b.getInt());
        int partition = b.getInt();
        long readTo = b.getLong();
        boolean hadRecords = b.get() == 1;
        long latest = b.getLong();
        OptionalLong time;
        if (perPartition) {
          time = b.get() == 1 ? OptionalLong.of(b.getLong()) : OptionalLong.empty();
        } else {
          time = hadRecords ? batchTime : OptionalLong.empty();
        }
        partitions.add(new SourcePosition(topic, partition, readTo, hadRecords, latest, time));
      }
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(b.remaining() + " bytes after the progress record");
      }
      return new Progress(partitions);
    }
  }

  /**
   * Decodes a record value of the repartition topic.
   *
   * @throws IllegalArgumentException for a value this version did not write (unknown kind,
   *     truncated): the topic is internal, so that is a bug or a foreign writer, never bad input
   */
  public Decoded decode(byte[] value) {
    if (value == null || value.length == 0) {
      throw new IllegalArgumentException("empty exchange record");
    }
    switch (value[0]) {
      case ROW:
        try {
          return new Row(Codec.values(value, 1, columns));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException(
              "truncated exchange row (" + value.length + " bytes)", e);
        }
      case MARKER:
        if (value.length != 9) {
          throw new IllegalArgumentException(
              "exchange marker of " + value.length + " bytes, expected 9");
        }
        return new Marker(ByteBuffer.wrap(value, 1, 8).getLong());
      case PROGRESS:
      case SOURCE_PROGRESS:
        try {
          return Progress.decode(value);
        } catch (RuntimeException e) {
          throw new IllegalArgumentException(
              "malformed exchange progress record (" + value.length + " bytes): " + e, e);
        }
      default:
        throw new IllegalArgumentException(
            "exchange record of unknown kind "
                + value[0]
                + ": written by a newer version of Tributary?");
    }
  }
}
