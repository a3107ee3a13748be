package dev.tributary.table;

import dev.tributary.table.log.Action;
import java.util.List;
import java.util.Objects;

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

  /**
   * Declares that every row of this transaction satisfies {@code rules} (the table's {@link
   * TableRules} the caller compiled and evaluated): the commit then honours the row-rule features
   * ({@link dev.tributary.table.log.ProtocolSupport#ROW_RULE_FEATURES}) the table uses, and fails,
   * committing nothing, if the table's rules are no longer these when it commits.
   */
  public void enforce(TableRules rules) {
    this.enforced = Objects.requireNonNull(rules, "rules");
  }

  /**
   * Moves an identity column's high-water mark in this commit: the commit carries a {@code
   * metaData} action whose schema gives the column {@code delta.identity.highWaterMark} = {@code
   * mark.highWaterMark()}, as Delta writers do when they generate identity values. The values were
   * assigned after {@code mark.previous()}: if the table's mark is no longer that when the commit
   * is made (another writer assigned values meanwhile), the commit fails with a {@link
   * CommitConflictException} and nothing is committed. A concurrent commit that changes the
   * metadata (as every writer that assigns identity values does) conflicts with this one too.
   */
  public void moveIdentity(IdentityMark mark) {
    identityMarks.add(Objects.requireNonNull(mark, "mark"));
  }

  /**
   * An identity column's high-water mark before and after the values this commit assigns.
   *
   * @param previous the mark the values follow (null: none assigned yet, they start at start)
   * @param highWaterMark the last value assigned
   */
  public record IdentityMark(String column, Long previous, long highWaterMark) {}

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
