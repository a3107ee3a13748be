package dev.tributary.table;

import dev.tributary.table.log.Action;
import java.util.List;

/**
 * Adds rows to a table; its commit is a blind append (Delta {@code WRITE} in append mode), which
 * never conflicts with other appends or compactions. See {@link TableTransaction} for the
 * lifecycle; obtain it from {@link DeltaTable#newAppend}.
 */
public final class AppendTransaction extends TableTransaction {
  AppendTransaction(DeltaTable table, TransactionId txn, Snapshot readSnapshot) {
    super(table, txn, readSnapshot);
  }

  AppendTransaction(DeltaTable table, List<PositionFence> fences, Snapshot readSnapshot) {
    super(table, fences, readSnapshot);
  }

  @Override
  List<Action> removals(long now) {
    return List.of();
  }

  @Override
  String operation() {
    return "WRITE";
  }

  @Override
  boolean overwritesAll() {
    return false;
  }
}
