package dev.tributary.table;

import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.RemoveFile;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.log.TableState;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a commit that won the race for a version means for ours (Delta's optimistic concurrency, for
 * the operations we have):
 *
 * <ul>
 *   <li>it carries our commitInfo {@code txnId}: it IS our commit (an earlier attempt whose outcome
 *       we did not know) - we are committed at that version;
 *   <li>it records our appId at a version >= ours: our batch is already in the table - skip;
 *   <li>it changes metaData or protocol: conflict (our files may not fit the new schema);
 *   <li>it removes a file we remove: conflict (the rows were deleted or rewritten already; a merge
 *       with deletion vectors removes each path it re-adds with a new vector, so two merges marking
 *       one file, or a compaction of it, conflict the same way);
 *   <li>it adds data while we overwrite the whole table, or data that may hold rows of the range we
 *       replace ({@link AddRule}): conflict (we would hide its rows);
 *   <li>it records one of our fenced positions ({@link PositionFence}): conflict, not retried
 *       (another writer moved the position: it owns that source partition now);
 *   <li>anything else (blind appends, compaction of other files) does not conflict: retry at the
 *       next version.
 * </ul>
 *
 * @param txnId our unique commit id
 * @param txn our transaction id, or null
 * @param removedPaths paths our commit removes
 * @param adds which added data conflicts ({@link AddRule#ALL} for whole-table overwrites)
 * @param fences the positions a fenced commit moves; empty otherwise
 */
record ConflictRules(
    String txnId,
    TransactionId txn,
    Set<String> removedPaths,
    AddRule adds,
    List<PositionFence> fences) {
  ConflictRules {
    removedPaths = Set.copyOf(removedPaths);
    Objects.requireNonNull(adds, "adds");
    fences = List.copyOf(fences);
  }

  ConflictRules(
      String txnId, TransactionId txn, Set<String> removedPaths, boolean appendsConflict) {
    this(txnId, txn, removedPaths, AddRule.of(appendsConflict), List.of());
  }

  /**
   * Which data ({@code add} actions with {@code dataChange=true}) a concurrent commit may not add
   * without conflicting with ours.
   *
   * @param conflicts whether an added file conflicts
   * @param why the end of the conflict's message ("while this commit ...")
   */
  record AddRule(Predicate<AddFile> conflicts, String why) {
    /** Blind appends, merges, compactions: added data never conflicts. */
    static final AddRule NONE = new AddRule(add -> false, "");

    /** A whole-table overwrite: any added data would be hidden by it. */
    static final AddRule ALL =
        new AddRule(add -> true, "while this commit overwrites the whole table");

    AddRule {
      Objects.requireNonNull(conflicts, "conflicts");
      Objects.requireNonNull(why, "why");
    }

    static AddRule of(boolean appendsConflict) {
      return appendsConflict ? ALL : NONE;
    }
  }

  /**
   * Checks that {@code state}, the snapshot the next attempt commits on top of, holds every fence's
   * expected position.
   *
   * @throws PositionConflictException naming the position, what the table holds and what we
   *     expected
   */
  void checkFences(String location, TableState state) {
    for (PositionFence f : fences) {
      OptionalLong held = state.transactionVersion(f.appId());
      if (!f.admits(held)) {
        throw new PositionConflictException(
            f.appId(),
            "Commit to Delta table at "
                + location
                + " is fenced off: position "
                + f.appId()
                + " is at "
                + (held.isPresent() ? Long.toString(held.getAsLong()) : "(none)")
                + " in table version "
                + state.version()
                + " but this commit continues from "
                + (f.expected().isPresent() ? Long.toString(f.expected().getAsLong()) : "(none)")
                + "; another writer committed it meanwhile. Nothing was committed; re-read the position.");
      }
    }
  }

  /** Verdict on one winning commit. */
  enum Verdict {
    NO_CONFLICT,
    OURS,
    ALREADY_COMMITTED
  }

  Verdict check(String location, long version, List<Action> winner) {
    for (Action a : winner) {
      if (a instanceof CommitInfo ci && ci.txnId().filter(txnId::equals).isPresent()) {
        return Verdict.OURS;
      }
    }
    for (Action a : winner) {
      if (a instanceof SetTransaction t
          && txn != null
          && t.appId().equals(txn.appId())
          && t.version() >= txn.version()) {
        return Verdict.ALREADY_COMMITTED;
      }
    }
    for (Action a : winner) {
      if (a instanceof SetTransaction t) {
        for (PositionFence f : fences) {
          if (f.appId().equals(t.appId())) {
            throw new PositionConflictException(
                f.appId(),
                "Commit to Delta table at "
                    + location
                    + " is fenced off: concurrent commit "
                    + version
                    + " moved position "
                    + f.appId()
                    + " to "
                    + t.version()
                    + " while this commit continued from "
                    + (f.expected().isPresent()
                        ? Long.toString(f.expected().getAsLong())
                        : "(none)")
                    + ". Nothing was committed; another writer owns that position now.");
          }
        }
      }
      if (a instanceof Metadata || a instanceof Protocol) {
        throw conflict(
            location,
            version,
            "it changed the table's "
                + a.kind()
                + " (schema, partitioning, properties or protocol)");
      }
      if (a instanceof RemoveFile r && removedPaths.contains(r.path())) {
        throw conflict(
            location,
            version,
            "it removed file '"
                + r.path()
                + "', which this commit also removes (concurrent compaction, overwrite or delete)");
      }
      if (a instanceof AddFile add && add.dataChange() && adds.conflicts().test(add)) {
        throw conflict(location, version, "it added data ('" + add.path() + "') " + adds.why());
      }
    }
    return Verdict.NO_CONFLICT;
  }

  private CommitConflictException conflict(String location, long version, String why) {
    return new CommitConflictException(
        "Commit to Delta table at "
            + location
            + (txn == null ? "" : " for transaction " + txn.appId() + "/" + txn.version())
            + " conflicts with concurrent commit "
            + version
            + ": "
            + why
            + ". Nothing was committed; re-read the table and redo the operation.");
  }
}
