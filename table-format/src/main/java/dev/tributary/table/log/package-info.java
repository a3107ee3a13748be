/**
 * The Delta log on an object store (docs/LOG_FORMAT.md): the actions ({@link
 * dev.tributary.table.log.Action} and its records) and their JSON codec, the log's files and their
 * names, a commit as one put-if-absent of {@code _delta_log/<version>.json} ({@link
 * dev.tributary.table.log.DeltaLog#tryCommit}), log replay into a {@link
 * dev.tributary.table.log.TableState} from the newest checkpoint, and Parquet checkpoints. What the
 * protocol versions and table features allow is in {@link dev.tributary.table.log.ProtocolSupport}.
 * Used by the table layer only; it knows nothing of transactions or conflicts.
 */
package dev.tributary.table.log;
