/**
 * The Delta Lake table format, written to the open protocol (reader version 1, writer version 2):
 * Parquet data files with column statistics, the {@code _delta_log} of JSON commits and Parquet
 * checkpoints, optimistic commits through put-if-absent with conflict checks, {@code txn}
 * idempotency by (application id, version), compaction and vacuum.
 *
 * <p>Uses only {@code storage} and parquet-hadoop (with the shaded Hadoop client). It must not use
 * Spring, Kafka or the {@code checkpoint} module: the service joins checkpoints and tables through
 * the transaction id (pipeline id, batch id).
 */
package dev.tributary.table;
