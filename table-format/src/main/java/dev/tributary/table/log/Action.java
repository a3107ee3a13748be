package dev.tributary.table.log;

/**
 * One action of a Delta commit: a line {@code {"<kind>":{...}}} of a {@code _delta_log/NNN.json}
 * file or a row of a checkpoint. The records hold the protocol's fields under their Delta names;
 * {@link ActionCodec} maps them to and from JSON.
 *
 * <p>Actions we do not write ({@code cdc}, {@code domainMetadata}, {@code rowIdHighWaterMark}...)
 * are skipped on read because they do not change the set of live files we read or write; those that
 * would (deletion vectors, column mapping, v2 checkpoints) are guarded by the protocol's reader
 * features, which {@link ProtocolSupport} refuses.
 */
public sealed interface Action
    permits AddFile, RemoveFile, SetTransaction, Metadata, Protocol, CommitInfo {

  /** The key of this action in its JSON line, e.g. {@code "add"} or {@code "metaData"}. */
  String kind();
}
