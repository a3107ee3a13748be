package dev.tributary.table;

import dev.tributary.storage.retry.RetryPolicy;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.DomainMetadata;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.RemoveFile;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.log.TableState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimistic commit loop. One attempt: put-if-absent {@code _delta_log/<read version +
 * 1>.json}.
 *
 * <ul>
 *   <li>{@code true}: committed.
 *   <li>{@code false} (lost race): read every commit after our read version and judge it with
 *       {@link ConflictRules}; without conflict, retry at the next free version.
 *   <li>{@code IOException} (state unknown): the same reading resolves it - our commit is
 *       recognized by its commitInfo {@code txnId}; if it is absent, retrying is safe because
 *       put-if-absent can never create a second copy at the version an earlier attempt may still
 *       take. Nothing is ever deleted.
 * </ul>
 *
 * A fenced commit ({@link PositionFence}) is checked against the state it commits on top of before
 * every attempt, and a winner that records one of its positions is a conflict: a fence never
 * retries past another writer's move. Attempts are bounded by {@link TableOptions#commitRetry()}
 * (retry site {@code delta.commit}), with backoff between them; that policy's limits apply, and
 * what is retried is decided here.
 */
final class Committer {
  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);

  private final DeltaLog log;
  private final TableOptions options;
  private final Counters counters;

  Committer(DeltaLog log, TableOptions options, Counters counters) {
    this.log = log;
    this.options = options;
    this.counters = counters;
  }

  /** A commit's outcome with the table state just after it (or the state that made us skip). */
  record Outcome(CommitResult result, TableState state) {}

  Outcome commit(
      TableState readState,
      TransactionId txn,
      List<PositionFence> fences,
      List<Action> fileActions,
      String operation,
      Map<String, ?> extras,
      ConflictRules.AddRule conflictingAdds,
      Set<String> enforced) {
    String txnId = UUID.randomUUID().toString();
    List<String> removed = new ArrayList<>();
    int adds = 0;
    for (Action a : fileActions) {
      if (a instanceof RemoveFile r) {
        removed.add(r.path());
      } else if (a instanceof AddFile) {
        adds++;
      }
    }
    ConflictRules rules =
        new ConflictRules(txnId, txn, new HashSet<>(removed), conflictingAdds, fences);
    Attempts attempts =
        new Attempts(
            readState,
            txn,
            txnId,
            rules,
            fileActions,
            operation,
            extras,
            adds,
            removed.size(),
            enforced);
    try {
      return options.commitRetry().retryingOn(NotCommittedYet.class::isInstance).call(attempts);
    } catch (NotCommittedYet e) {
      throw new CommitFailedException(
          "Commit to Delta table at "
              + log.location()
              + (txn == null ? "" : " for transaction " + txn.appId() + "/" + txn.version())
              + " did not succeed in "
              + e.attempt
              + " attempts"
              + (e.unknown
                  ? "; the last attempt's outcome is UNKNOWN (the commit may exist): do not"
                      + " delete its data files, retry with the same transaction id to resolve it"
                  : e.writeFailed
                      ? "; the last attempt's write failed and is not in the log (the store"
                          + " refused it, see the last error); retry once the store accepts"
                          + " writes again"
                      : " (concurrent writers kept taking the next version); retry later")
              + (e.lastError == null ? "" : ". Last error: " + e.lastError),
          e.unknown,
          e.lastError);
    }
  }

  /**
   * The attempts of one commit, in order, with what they learned: the state the next one commits on
   * top of, and whether the last outcome is still unknown.
   */
  private final class Attempts implements RetryPolicy.Attempt<Outcome, RuntimeException> {
    private final TableState readState;
    private final TransactionId txn;
    private final String txnId;
    private final ConflictRules rules;
    private final List<Action> fileActions;
    private final String operation;
    private final Map<String, ?> extras;
    private final int adds;
    private final int removes;
    private final Set<String> enforced;
    private TableState state;
    private boolean unknown;
    // The last attempt's put threw rather than losing a race: a failing store (a full disk, a
    // refused request), not a concurrent writer, kept the commit out.
    private boolean writeFailed;
    private IOException lastError;

    Attempts(
        TableState readState,
        TransactionId txn,
        String txnId,
        ConflictRules rules,
        List<Action> fileActions,
        String operation,
        Map<String, ?> extras,
        int adds,
        int removes,
        Set<String> enforced) {
      this.readState = readState;
      this.txn = txn;
      this.txnId = txnId;
      this.rules = rules;
      this.fileActions = fileActions;
      this.operation = operation;
      this.extras = extras;
      this.adds = adds;
      this.removes = removes;
      this.enforced = enforced;
      this.state = readState;
    }

    /**
     * One put-if-absent of the next version, then, unless it committed, the catch-up that settles a
     * lost race or an unknown outcome; throws {@link NotCommittedYet} when another attempt is
     * needed.
     */
    @Override
    public Outcome run(int attempt) {
      OptionalLong held =
          txn == null ? OptionalLong.empty() : state.transactionVersion(txn.appId());
      if (held.isPresent() && held.getAsLong() >= txn.version()) {
        counters.skipped.increment();
        return new Outcome(CommitResult.skipped(state.version(), attempt - 1), state);
      }
      try {
        rules.checkFences(log.location(), state);
      } catch (CommitConflictException e) {
        counters.conflicts.increment();
        throw e;
      }
      ProtocolSupport.checkWritable(
          log.location(), state.version(), state.protocol(), state.metadata(), enforced);
      long version = state.version() + 1;
      List<Action> actions =
          actions(
              txnId,
              readState.version(),
              txn,
              operation,
              extras,
              RowTracking.assign(state, version, fileActions),
              inCommitTimestamp(state));
      counters.attempts.increment();
      if (attempt > 1) {
        counters.retries.increment();
      }
      writeFailed = false;
      try {
        if (log.tryCommit(version, actions)) {
          counters.commits.increment();
          return new Outcome(
              new CommitResult(CommitResult.Outcome.COMMITTED, version, attempt, adds, removes),
              apply(state, version, actions));
        }
        counters.lostRaces.increment();
      } catch (IOException e) {
        counters.unknownStates.increment();
        unknown = true;
        writeFailed = true;
        lastError = e;
        LOG.warn(
            "Commit {} of {} ended in an I/O error of unknown outcome; resolving by reading"
                + " the log: {}",
            version,
            log.location(),
            e.toString());
      }
      try {
        Outcome resolved = catchUp(state, rules);
        if (resolved.result() != null) {
          return resolved;
        }
        state = resolved.state();
        unknown = false; // our txnId is not in the log up to here: the earlier put did not land
      } catch (IOException e) {
        lastError = e;
      } catch (CommitConflictException e) {
        counters.conflicts.increment();
        throw e;
      }
      throw new NotCommittedYet(attempt, unknown, writeFailed, lastError);
    }
  }

  /**
   * The only failure the commit retries: an attempt that lost the race without conflict, or whose
   * unknown outcome was settled as "not committed" or could not be settled yet. Retrying is safe in
   * every case: put-if-absent never creates a second copy of a version an earlier attempt may still
   * hold, and the next attempt reads the log first. Carries what the final error needs if the
   * attempts run out.
   */
  private static final class NotCommittedYet extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int attempt;
    private final boolean unknown;
    private final boolean writeFailed;
    private final transient IOException lastError;

    NotCommittedYet(int attempt, boolean unknown, boolean writeFailed, IOException lastError) {
      super("commit attempt " + attempt + " did not commit", null, false, false);
      this.attempt = attempt;
      this.unknown = unknown;
      this.writeFailed = writeFailed;
      this.lastError = lastError;
    }
  }

  /**
   * Reads the commits after {@code state} and applies them. Returns a result if one of them is ours
   * or already holds our transaction; otherwise the caught-up state.
   */
  private Outcome catchUp(TableState state, ConflictRules rules) throws IOException {
    TableState current = state;
    for (long v : log.commitsAfter(state.version())) {
      if (v != current.version() + 1) {
        break; // a gap is being filled right now; the next attempt sees it complete
      }
      List<Action> winner = log.readCommit(v);
      ConflictRules.Verdict verdict = rules.check(log.location(), v, winner);
      current = apply(current, v, winner);
      if (verdict == ConflictRules.Verdict.OURS) {
        counters.commits.increment();
        int adds = 0;
        int removes = 0;
        for (Action a : winner) {
          adds += a instanceof AddFile ? 1 : 0;
          removes += a instanceof RemoveFile ? 1 : 0;
        }
        return new Outcome(
            new CommitResult(CommitResult.Outcome.COMMITTED, v, 0, adds, removes), current);
      }
      if (verdict == ConflictRules.Verdict.ALREADY_COMMITTED) {
        counters.skipped.increment();
        return new Outcome(CommitResult.skipped(v, 0), current);
      }
    }
    return new Outcome(null, current);
  }

  private List<Action> actions(
      String txnId,
      long readVersion,
      TransactionId txn,
      String operation,
      Map<String, ?> extras,
      List<Action> fileActions,
      long previousInCommitTimestamp) {
    long now = options.clock().millis();
    Map<String, Object> info = new LinkedHashMap<>();
    if (previousInCommitTimestamp != NO_IN_COMMIT_TIMESTAMP) {
      // first field of the first action, later than the previous commit's (PROTOCOL.md)
      info.put("inCommitTimestamp", Math.max(now, previousInCommitTimestamp + 1));
    }
    info.put("timestamp", now);
    info.put("operation", operation);
    info.put("readVersion", readVersion);
    info.put(
        "isBlindAppend",
        fileActions.stream().allMatch(a -> a instanceof AddFile || a instanceof DomainMetadata));
    info.put("engineInfo", "Tributary");
    info.put(CommitInfo.TXN_ID, txnId);
    extras.forEach(info::putIfAbsent);
    List<Action> actions = new ArrayList<>(fileActions.size() + 2);
    actions.add(new CommitInfo(info));
    if (txn != null) {
      actions.add(new SetTransaction(txn.appId(), txn.version(), now));
    }
    actions.addAll(fileActions);
    return actions;
  }

  private static final long NO_IN_COMMIT_TIMESTAMP = Long.MIN_VALUE;

  /**
   * With in-commit timestamps enabled, the {@code inCommitTimestamp} of the commit at the state's
   * version (read from its commit file; 0 if it has none); else {@link #NO_IN_COMMIT_TIMESTAMP}.
   */
  private long inCommitTimestamp(TableState state) {
    boolean enabled =
        state.protocol().writerFeatures().contains("inCommitTimestamp")
            && Boolean.parseBoolean(
                state
                    .metadata()
                    .configuration()
                    .getOrDefault("delta.enableInCommitTimestamps", "false"));
    if (!enabled) {
      return NO_IN_COMMIT_TIMESTAMP;
    }
    try {
      for (Action a : log.readCommit(state.version())) {
        if (a instanceof CommitInfo info
            && info.values().get("inCommitTimestamp") instanceof Number ict) {
          return ict.longValue();
        }
      }
    } catch (IOException e) {
      // the commit of a checkpointed version may be cleaned up; our clock then decides
      LOG.debug("No in-commit timestamp of version {}: {}", state.version(), e.toString());
    }
    return 0;
  }

  static TableState apply(TableState state, long version, List<Action> actions) {
    return DeltaLog.applyCommit(state, version, actions);
  }
}
