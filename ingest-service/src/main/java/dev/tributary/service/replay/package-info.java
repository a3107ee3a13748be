/**
 * {@code tributary replay-quarantine}: quarantined Kafka records re-parsed with the pipeline's
 * current declaration and, those that now parse, written to its Delta sink exactly once
 * (docs/DESIGN.md, "Replaying the quarantine"). {@link
 * dev.tributary.service.replay.QuarantineReplay} is the protocol: a numbered run whose sink commit
 * carries its own {@code txn} and names the records it replays, then a second idempotent commit
 * that takes them out of the quarantine table; a run interrupted between the two is completed from
 * the sink's record, never written again. This package writes only the pipeline's sink and
 * quarantine tables and never touches its checkpoint.
 */
package dev.tributary.service.replay;
