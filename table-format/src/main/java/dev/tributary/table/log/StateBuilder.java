package dev.tributary.table.log;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies actions in log order (Delta's action reconciliation): an {@code add} makes a path live
 * and clears its tombstone, a {@code remove} makes it a tombstone, the last {@code txn} per appId,
 * the last {@code metaData} and the last {@code protocol} win. Not thread-safe; one replay only.
 */
final class StateBuilder {
  private long version = -1;
  private Protocol protocol;
  private Metadata metadata;
  private final Map<String, AddFile> files = new LinkedHashMap<>();
  private final Map<String, RemoveFile> tombstones = new LinkedHashMap<>();
  private final Map<String, SetTransaction> transactions = new LinkedHashMap<>();
  private final Map<String, DomainMetadata> domains = new LinkedHashMap<>();

  StateBuilder() {}

  StateBuilder(TableState from) {
    version = from.version();
    protocol = from.protocol();
    metadata = from.metadata();
    files.putAll(from.files());
    tombstones.putAll(from.tombstones());
    transactions.putAll(from.transactions());
    domains.putAll(from.domains());
  }

  /**
   * Applies one commit. Delta does not order the actions within a commit, so the removes are
   * applied before the adds: a commit that replaces a file's deletion vector ({@code remove} of the
   * path with the old vector, {@code add} with the new one) leaves the new one live in any order.
   */
  void apply(long commitVersion, List<Action> actions) {
    for (Action a : actions) {
      if (a instanceof RemoveFile) {
        apply(a);
      }
    }
    for (Action a : actions) {
      if (!(a instanceof RemoveFile)) {
        apply(a);
      }
    }
    version = commitVersion;
  }

  /**
   * Applies one action. Logical files are keyed by {@code (path, deletion vector)}: a remove takes
   * a live file out only if it names the same deletion vector (or none, as the live file).
   */
  void apply(Action a) {
    if (a instanceof AddFile add) {
      files.put(add.path(), add);
      tombstones.remove(add.logicalKey());
    } else if (a instanceof RemoveFile remove) {
      AddFile live = files.get(remove.path());
      if (live != null && live.logicalKey().equals(remove.logicalKey())) {
        files.remove(remove.path());
      }
      tombstones.put(remove.logicalKey(), remove);
    } else if (a instanceof SetTransaction txn) {
      transactions.put(txn.appId(), txn);
    } else if (a instanceof Metadata m) {
      metadata = m;
    } else if (a instanceof Protocol p) {
      protocol = p;
    } else if (a instanceof DomainMetadata d) {
      if (d.removed()) {
        domains.remove(d.domain());
      } else {
        domains.put(d.domain(), d);
      }
    }
  }

  long version() {
    return version;
  }

  boolean complete() {
    return protocol != null && metadata != null;
  }

  TableState build() {
    return new TableState(version, protocol, metadata, files, tombstones, transactions, domains);
  }
}
