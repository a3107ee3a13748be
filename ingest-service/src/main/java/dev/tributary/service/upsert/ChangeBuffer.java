package dev.tributary.service.upsert;

import dev.tributary.table.MergeSpec;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.types.StructType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One batch's changes, collapsed to the one change per key that the merge applies (docs/DESIGN.md,
 * "Upsert"). Of several changes to one key the one with the highest {@code sequence-by} value wins,
 * ties broken by the Kafka offset (then the partition); without a sequence column, the one with the
 * highest offset. A change that loses is counted as older.
 *
 * <p>A Kafka tombstone has no sequence value: it deletes the key at its place in its partition (it
 * beats the changes before it in the partition, and loses to the ones after it), and takes the
 * sequence value of the change it beats, so that a later change older than that one still loses. A
 * change that follows a tombstone applies whatever the table holds (the tombstone deleted the
 * table's row first): a delete followed by an insert is an insert.
 *
 * <p>Rows of a partition arrive in offset order (the source reads each partition in order), which
 * is what makes the fold by arrival correct for tombstones; across partitions, positions are
 * compared as (offset, partition), a deterministic order whatever the interleaving. Without Kafka
 * columns (a Delta source), the arrival order is the position. Not thread-safe.
 */
final class ChangeBuffer {
  private static final long NONE = MergeSpec.NO_SEQUENCE;

  private final int[] keys;
  private final int sequence;
  private final int offset;
  private final int partition;
  private final Map<List<Object>, Pending> pending = new LinkedHashMap<>();
  private long arrivals;
  private long olderInBatch;

  /** A key's winning change so far. */
  private record Pending(
      MergeTransaction.Kind kind,
      Object[] row,
      long sequence,
      long offset,
      int partition,
      boolean tombstone,
      boolean afterTombstone) {}

  /**
   * @param schema the sink rows' schema
   * @param keyColumns the key columns
   * @param sequenceColumn the sequence column, or null
   */
  ChangeBuffer(StructType schema, List<String> keyColumns, String sequenceColumn) {
    this.keys = keyColumns.stream().mapToInt(schema::indexOf).toArray();
    this.sequence = sequenceColumn == null ? -1 : schema.indexOf(sequenceColumn);
    this.offset = schema.indexOf("_kafka_offset");
    this.partition = schema.indexOf("_kafka_partition");
  }

  /** A row that becomes its key's row. */
  void upsert(Object[] row) {
    add(MergeTransaction.Kind.UPSERT, row);
  }

  /** A row that deletes its key: a tombstone when it has no sequence value. */
  void delete(Object[] row) {
    add(MergeTransaction.Kind.DELETE, row);
  }

  private void add(MergeTransaction.Kind kind, Object[] row) {
    arrivals++;
    long seq = sequence < 0 ? NONE : sequenceOf(row[sequence]);
    boolean tombstone = kind == MergeTransaction.Kind.DELETE && sequence >= 0 && seq == NONE;
    long position = offset >= 0 && row[offset] instanceof Long o ? o : arrivals;
    int part = partition >= 0 && row[partition] instanceof Integer p ? p : 0;
    Pending c = new Pending(kind, row, seq, position, part, tombstone, false);
    List<Object> key = key(row);
    Pending p = pending.get(key);
    if (p == null) {
      pending.put(key, c);
      return;
    }
    if (!wins(c, p)) {
      olderInBatch++;
      return;
    }
    pending.put(
        key,
        new Pending(
            kind,
            row,
            tombstone ? p.sequence() : seq,
            position,
            part,
            tombstone,
            !tombstone && (p.tombstone() || p.afterTombstone())));
  }

  /** Whether {@code c}, which arrives after {@code p}, replaces it. */
  private boolean wins(Pending c, Pending p) {
    boolean byPosition = c.tombstone() || c.sequence() == NONE || p.sequence() == NONE;
    if (!byPosition) {
      int bySequence = Long.compare(c.sequence(), p.sequence());
      if (bySequence != 0) {
        return bySequence > 0;
      }
    }
    if (c.partition() == p.partition()) {
      return c.offset() >= p.offset(); // a partition's rows arrive in order
    }
    return c.offset() != p.offset() ? c.offset() > p.offset() : c.partition() > p.partition();
  }

  /** The collapsed changes, one per key, in the order keys first arrived. */
  List<MergeTransaction.Change> changes() {
    List<MergeTransaction.Change> out = new ArrayList<>(pending.size());
    for (Pending p : pending.values()) {
      out.add(
          new MergeTransaction.Change(
              p.kind(),
              p.row(),
              p.afterTombstone()
                  ? MergeTransaction.Order.ALWAYS
                  : MergeTransaction.Order.BY_SEQUENCE));
    }
    return out;
  }

  /** The changes received. */
  long received() {
    return arrivals;
  }

  /**
   * Changes that arrived after a change of their key with a higher sequence value (or the same
   * value at a higher offset) and were dropped.
   */
  long olderInBatch() {
    return olderInBatch;
  }

  /** The number of keys changed. */
  int keys() {
    return pending.size();
  }

  /** The rows of the collapsed changes. */
  Collection<Object[]> rows() {
    return pending.values().stream().map(Pending::row).toList();
  }

  private List<Object> key(Object[] row) {
    List<Object> k = new ArrayList<>(keys.length);
    for (int c : keys) {
      Object v = row[c];
      k.add(v instanceof byte[] b ? ByteBuffer.wrap(b) : v);
    }
    return k;
  }

  private static long sequenceOf(Object value) {
    return MergeSpec.sequenceValue(value);
  }
}
