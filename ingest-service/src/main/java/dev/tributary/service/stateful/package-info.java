/**
 * Stateful streaming: the event-time watermark, deduplication and windowed aggregation (tumbling,
 * sliding, session) with append, update and complete output modes, on the checkpoint's versioned
 * state stores (RocksDB working copies, so large state stays off the heap). {@link
 * dev.tributary.service.stateful.StatefulPlan} compiles the declaration without I/O; {@link
 * dev.tributary.service.stateful.StatefulProcessor} runs it inside the batch body; the engine's
 * {@code DeltaTableSink} writes the update and complete modes' results (merge by key, overwrite).
 * Semantics and the state layout: docs/STATEFUL.md. The stream-stream join ({@link
 * dev.tributary.service.stateful.StreamJoinOperator} on {@link
 * dev.tributary.service.stateful.JoinState}, issue 25) runs on rows here and is not yet wired into
 * the processor; its rules: docs/STREAM_JOINS_SPARK_RULES.md.
 */
package dev.tributary.service.stateful;
