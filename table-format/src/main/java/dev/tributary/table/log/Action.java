package dev.tributary.table.log;

/**
 * One action of a Delta commit: a line {@code {"<kind>":{...}}} of a {@code _delta_log/NNN.json}
 * file or a row of a checkpoint. The records hold the protocol's fields under their Delta names;
 * {@link ActionCodec} maps them to and from JSON.
 *
 * <p>Actions we neither model nor need ({@code cdc}; {@code checkpointMetadata} and {@code
 * sidecar}, which only checkpoints hold and the checkpoint reader resolves) are skipped on read:
 * they do not change the set of live files. {@code domainMetadata} is modelled only to be kept.
 */
public sealed interface Action
    permits AddFile, RemoveFile, SetTransaction, Metadata, Protocol, CommitInfo, DomainMetadata {

  /** The key of this action in its JSON line, e.g. {@code "add"} or {@code "metaData"}. */
  String kind();
}
