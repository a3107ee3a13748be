package dev.tributary.service.engine;

import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.table.PositionFence;
import java.io.IOException;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The quarantine writer of a group batch: a record whose offset is below the quarantine table's
 * position for its partition is already in the table (an earlier batch over the same offsets
 * committed the quarantine table and then lost its sink commit to a crash or to the partition's new
 * owner), so it is not written again. Quarantine rows start with topic, partition, offset ({@link
 * QuarantineRows#SCHEMA}).
 */
public final class AlreadyQuarantined implements TableSink.BatchWriter {
  private final TableSink.BatchWriter delegate;
  private final Map<SourcePartition, Long> positions;

  /**
   * @param delegate the quarantine table's fenced writer
   * @param positions the quarantine table's positions when the batch started (its {@code txn}s)
   */
  public AlreadyQuarantined(TableSink.BatchWriter delegate, Map<SourcePartition, Long> positions) {
    this.delegate = delegate;
    this.positions = Map.copyOf(positions);
  }

  /**
   * The quarantine table's fence for a range of {@code p} ending at {@code end}: valid while the
   * table holds the position the batch started from, moving it to {@code max(position, end)} (never
   * back, so records a failed attempt already quarantined stay below it).
   *
   * @param positions the quarantine table's positions when the batch started
   */
  public static PositionFence fence(
      TableTxns txns, SourcePartition p, Map<SourcePartition, Long> positions, long end) {
    Long q = positions.get(p);
    return new PositionFence(
        txns.positionAppId(p),
        q == null ? OptionalLong.empty() : OptionalLong.of(q),
        Math.max(q == null ? 0 : q, end));
  }

  @Override
  public boolean alreadyCommitted() {
    return delegate.alreadyCommitted();
  }

  @Override
  public void write(Object[] row) throws IOException {
    Long position = positions.get(new SourcePartition((String) row[0], (Integer) row[1]));
    if (position == null || (Long) row[2] >= position) {
      delegate.write(row);
    }
  }

  @Override
  public long rows() {
    return delegate.rows();
  }

  @Override
  public long commit(Map<String, String> commitInfo) throws IOException {
    return delegate.commit(commitInfo);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
