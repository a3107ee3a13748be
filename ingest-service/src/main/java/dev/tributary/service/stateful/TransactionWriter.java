package dev.tributary.service.stateful;

import dev.tributary.service.engine.TableSink;
import dev.tributary.table.CommitResult;
import dev.tributary.table.TableTransaction;
import java.io.IOException;
import java.util.Map;

/**
 * A batch written through one table transaction (merge or overwrite), which itself knows whether
 * the table already holds the batch's {@code txn}: then rows are dropped and the commit is a skip.
 */
final class TransactionWriter implements TableSink.BatchWriter {
  private final TableTransaction txn;
  private long rows;

  TransactionWriter(TableTransaction txn) {
    this.txn = txn;
  }

  @Override
  public boolean alreadyCommitted() {
    return txn.alreadyCommitted();
  }

  @Override
  public void write(Object[] row) throws IOException {
    txn.write(row);
    if (!txn.alreadyCommitted()) {
      rows++;
    }
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public long commit(Map<String, String> commitInfo) throws IOException {
    CommitResult result = txn.commit(commitInfo);
    return result.committed() ? result.tableVersion() : -1;
  }

  @Override
  public void close() {
    txn.close();
  }
}
