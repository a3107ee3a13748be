package dev.tributary.service.server;

import java.time.Instant;

/**
 * One commit of a served pipeline's sink table, as the status page lists it ({@code GET
 * /api/pipelines/{id}/commits}).
 *
 * @param table the table's location (secrets masked)
 * @param version the Delta version
 * @param timestamp the commit's {@code commitInfo.timestamp} (null if the writer recorded none)
 * @param operation {@code commitInfo.operation}: {@code WRITE}, {@code MERGE}, {@code OPTIMIZE},
 *     ... (null if none)
 * @param batchId the batch of this pipeline the commit holds (its {@code txn} version), null for a
 *     commit of no batch of this pipeline (compaction, another writer)
 * @param filesAdded data files added
 * @param filesRemoved data files removed
 * @param rowsAdded rows in the added files by their statistics ({@code numRecords}; files without
 *     statistics count 0)
 * @param bytesAdded bytes of the added files
 */
public record SinkCommit(
    String table,
    long version,
    Instant timestamp,
    String operation,
    Long batchId,
    int filesAdded,
    int filesRemoved,
    long rowsAdded,
    long bytesAdded) {}
