package dev.tributary.table;

import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.ProtocolSupport;
import java.util.ArrayList;
import java.util.List;

/**
 * Replaces the whole content of a table in one commit: every file live in the read snapshot is
 * removed ({@code dataChange=true}) and the new files are added (complete output mode). Conflicts
 * with any concurrent commit that adds data or removes the same files. Refused on append-only
 * tables. See {@link TableTransaction} for the lifecycle.
 */
public final class OverwriteTransaction extends TableTransaction {
  OverwriteTransaction(DeltaTable table, TransactionId txn, Snapshot readSnapshot) {
    super(table, txn, readSnapshot);
    if (ProtocolSupport.appendOnly(readSnapshot.state().metadata())) {
      throw new TableException(
          "Cannot overwrite Delta table at "
              + table.location()
              + ": it is append-only (delta.appendOnly=true). Append instead, or write to another table.");
    }
  }

  @Override
  List<Action> removals(long now) {
    List<Action> removes = new ArrayList<>();
    for (AddFile f : readSnapshot.state().files().values()) {
      removes.add(f.toRemove(now, true /* dataChange */));
    }
    return removes;
  }

  @Override
  String operation() {
    return "WRITE";
  }

  @Override
  boolean overwritesAll() {
    return true;
  }
}
