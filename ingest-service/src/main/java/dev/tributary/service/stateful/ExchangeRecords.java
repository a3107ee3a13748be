package dev.tributary.service.stateful;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
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
 *   <li>{@link #MARKER}: an event time the writing batch saw (the maximum event time of the rows it
 *       produced), sent to every partition after the batch's rows. A partition's own maximum event
 *       time therefore follows the whole stream, not only its keys, which is what lets the
 *       partitions agree on one watermark (and lets a partition without rows still advance it).
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

  /** One marker per partition carrying {@code eventTimeMicros}. */
  public List<Outgoing> markers(long eventTimeMicros) {
    byte[] value = ByteBuffer.allocate(9).put(MARKER).putLong(eventTimeMicros).array();
    List<Outgoing> out = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      out.add(new Outgoing(p, null, value));
    }
    return out;
  }

  /** A decoded exchange record. */
  public sealed interface Decoded permits Row, Marker {}

  /** A row, values in input-schema order. */
  public record Row(Object[] values) implements Decoded {}

  /** An event time the writer saw. */
  public record Marker(long eventTimeMicros) implements Decoded {}

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
      default:
        throw new IllegalArgumentException(
            "exchange record of unknown kind "
                + value[0]
                + ": written by a newer version of Tributary?");
    }
  }
}
