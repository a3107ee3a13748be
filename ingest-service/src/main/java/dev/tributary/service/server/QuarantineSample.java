package dev.tributary.service.server;

import java.time.Instant;

/**
 * One record of a served pipeline's quarantine table, as the status page shows it ({@code GET
 * /api/pipelines/{id}/quarantine}).
 *
 * @param source where the record came from: {@code topic/partition@offset} for a Kafka record,
 *     {@code file#row} of the source table for a Delta source's row
 * @param value the record's value as text (UTF-8, invalid bytes replaced; a Delta source's row as
 *     JSON), cut to {@value TableViews#MAX_VALUE_CHARS} characters; null for a record without value
 * @param error why it was quarantined: the parse error, or the expectation's name
 * @param batchId the batch that quarantined it
 * @param quarantinedAt when
 */
public record QuarantineSample(
    String source, String value, String error, Long batchId, Instant quarantinedAt) {}
