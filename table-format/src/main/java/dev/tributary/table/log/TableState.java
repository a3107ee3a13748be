package dev.tributary.table.log;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The reconciled state of a Delta table at one version: what replaying the log up to and including
 * {@code version} yields (Delta's "action reconciliation"): the latest protocol and metadata, the
 * live files, the tombstones, and the latest {@code txn} per application.
 *
 * @param version the table version this state reflects
 * @param protocol the latest protocol action
 * @param metadata the latest metaData action
 * @param files live files by path (decoded); a path is live with at most one deletion vector
 * @param tombstones removed logical files by {@link RemoveFile#logicalKey()} (the path, and the
 *     deletion vector if any), with the remove that tombstoned them
 * @param transactions latest txn per appId
 * @param domains the live metadata domains by name (tombstoned ones are gone)
 */
public record TableState(
    long version,
    Protocol protocol,
    Metadata metadata,
    Map<String, AddFile> files,
    Map<String, RemoveFile> tombstones,
    Map<String, SetTransaction> transactions,
    Map<String, DomainMetadata> domains) {
  public TableState {
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(metadata, "metadata");
    files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
    tombstones = Collections.unmodifiableMap(new LinkedHashMap<>(tombstones));
    transactions = Collections.unmodifiableMap(new LinkedHashMap<>(transactions));
    domains =
        Collections.unmodifiableMap(new LinkedHashMap<>(domains == null ? Map.of() : domains));
  }

  /** The latest version committed by {@code appId}, or empty if it never committed. */
  public OptionalLong transactionVersion(String appId) {
    SetTransaction t = transactions.get(appId);
    return t == null ? OptionalLong.empty() : OptionalLong.of(t.version());
  }
}
