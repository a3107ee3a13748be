package dev.tributary.service.upsert;

import dev.tributary.table.HistoryMergeTransaction;
import dev.tributary.table.MergeSpec;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.types.StructType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One batch's changes for a table that keeps every version of a key ({@code history: scd2},
 * docs/DESIGN.md "Upsert"): nothing collapses, every change becomes a version (or ends one). Each
 * change takes effect at its {@code sequence-by} value (a timestamp). A Kafka tombstone has no
 * sequence value: it takes effect at its Kafka timestamp, but never before the changes of its key
 * that precede it in the stream, in the batch or in the table ({@link
 * HistoryMergeTransaction.Placement#NOT_BEFORE_LATEST}): the two clocks differ, and a tombstone
 * deletes what its key holds where it stands, not an earlier version. The changes are handed to the
 * merge ordered by that instant, then by stream position (offset, then partition; the arrival order
 * without Kafka columns), so that of a key's changes of one kind at one instant the first in the
 * stream stands (the later ones are duplicates), whatever order the partitions interleaved in. Not
 * thread-safe.
 */
final class HistoryBuffer {
  private final String pipelineId;
  private final int width;
  private final int sequence;
  private final int kafkaTimestamp;
  private final int offset;
  private final int partition;
  private final int[] keys;
  private final List<Pending> pending = new ArrayList<>();

  /** Per key, the earliest instant a tombstone arriving now can take. */
  private final Map<List<Object>, Long> floors = new HashMap<>();

  /** A change with what orders it. */
  private record Pending(
      MergeTransaction.Kind kind,
      Object[] row,
      long at,
      HistoryMergeTransaction.Placement placement,
      long position,
      int partition) {}

  private static final Comparator<Pending> ORDER =
      Comparator.comparingLong(Pending::at)
          .thenComparingLong(Pending::position)
          .thenComparingInt(Pending::partition);

  /**
   * @param schema the sink rows' schema (without the history columns)
   * @param keyColumns the key columns
   * @param sequenceColumn the {@code sequence-by} column, a timestamp
   */
  HistoryBuffer(
      String pipelineId, StructType schema, List<String> keyColumns, String sequenceColumn) {
    this.pipelineId = pipelineId;
    this.keys = keyColumns.stream().mapToInt(schema::indexOf).toArray();
    this.width = schema.size() + HistoryMergeTransaction.HISTORY_COLUMNS.size();
    this.sequence = schema.indexOf(sequenceColumn);
    this.kafkaTimestamp = schema.indexOf("_kafka_timestamp");
    this.offset = schema.indexOf("_kafka_offset");
    this.partition = schema.indexOf("_kafka_partition");
  }

  /** A row that becomes a version of its key from its sequence value on. */
  void upsert(Object[] row) {
    add(MergeTransaction.Kind.UPSERT, row);
  }

  /** A row that ends its key's version at its sequence value (a tombstone's: its Kafka time). */
  void delete(Object[] row) {
    add(MergeTransaction.Kind.DELETE, row);
  }

  private void add(MergeTransaction.Kind kind, Object[] row) {
    long at = MergeSpec.sequenceValue(row[sequence]);
    HistoryMergeTransaction.Placement placement = HistoryMergeTransaction.Placement.AT;
    List<Object> key = key(row);
    Long floor = floors.get(key);
    if (at == MergeSpec.NO_SEQUENCE && kafkaTimestamp >= 0) {
      // a tombstone: no value, so no sequence value
      at = MergeSpec.sequenceValue(row[kafkaTimestamp]);
      placement = HistoryMergeTransaction.Placement.NOT_BEFORE_LATEST;
      if (floor != null && at != MergeSpec.NO_SEQUENCE && at < floor) {
        at = floor;
      }
    }
    if (at == MergeSpec.NO_SEQUENCE) {
      throw new IllegalStateException(
          "Pipeline "
              + pipelineId
              + ": a "
              + (kind == MergeTransaction.Kind.DELETE ? "delete" : "change")
              + " has no sequence-by value and no Kafka timestamp, so history: scd2 cannot place"
              + " it in its key's history");
    }
    long position = offset >= 0 && row[offset] instanceof Long o ? o : pending.size();
    int part = partition >= 0 && row[partition] instanceof Integer p ? p : 0;
    Object[] wide = new Object[width];
    System.arraycopy(row, 0, wide, 0, row.length);
    pending.add(new Pending(kind, wide, at, placement, position, part));
    // just after an upsert's instant (its version must not be erased), or at a delete's
    long next = kind == MergeTransaction.Kind.UPSERT ? at + 1 : at;
    floors.put(key, floor == null ? next : Math.max(floor, next));
  }

  private List<Object> key(Object[] row) {
    List<Object> k = new ArrayList<>(keys.length);
    for (int c : keys) {
      Object v = row[c];
      k.add(v instanceof byte[] b ? ByteBuffer.wrap(b) : v);
    }
    return k;
  }

  /** The changes received. */
  long received() {
    return pending.size();
  }

  /** The changes in the order the merge takes them: by instant, then stream position. */
  List<HistoryMergeTransaction.Change> changes() {
    List<Pending> ordered = new ArrayList<>(pending);
    ordered.sort(ORDER);
    List<HistoryMergeTransaction.Change> out = new ArrayList<>(ordered.size());
    for (Pending p : ordered) {
      out.add(new HistoryMergeTransaction.Change(p.kind(), p.row(), p.at(), p.placement()));
    }
    return out;
  }
}
