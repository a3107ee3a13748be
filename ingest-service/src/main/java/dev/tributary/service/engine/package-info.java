/**
 * The engine: one run loop, one batch body, pluggable progress models (docs/DESIGN.md, "The run
 * loop" and "Code map"). It knows no source or table format: sources sit behind {@link
 * dev.tributary.service.engine.Source}, tables behind {@link
 * dev.tributary.service.engine.TableSink}, parsing and state behind {@link
 * dev.tributary.service.engine.RecordProcessor}.
 *
 * <h2>Code map: one batch of an exclusive pipeline, from plan to {@code putIfAbsent}</h2>
 *
 * <pre>
 * TriggerLoop.run                          trigger: when to run a step, waits, stop, fences
 *  └ TriggerLoop.Batches.step              one batch per step
 *     ├ WriteAheadLog.next                 plan + write-ahead
 *     │  ├ Source.plan                     (source.KafkaSource: offsets per partition)
 *     │  ├ RecordProcessor.planBatch       (dimension versions of joins)
 *     │  └ Checkpoint.writeOffsets         → LogFiles.create → ObjectStore.putIfAbsent(offsets/N)
 *     └ BatchBody.run                      the body, the same for every model
 *        ├ WriteAheadLog.open              TableSink.begin(BatchTag) per table: a no-op writer
 *        │                                 for a table that holds the batch (DeltaTableSink.begin
 *        │                                 → DeltaTable.latestTransactionVersion)
 *        ├ RecordProcessor.beginBatch
 *        ├ Source.read → SourceInput       (crash point mid-batch) → RecordProcessor.process
 *        │                                 → BatchOutputs.output/quarantine/late → BatchWriter.write
 *        ├ RecordProcessor.endBatch
 *        ├ quarantine limit                (QuarantineLimitExceededException before any commit)
 *        ├ BatchWriter.commit ×3           quarantine, late events, sink: DeltaTableSink.Writer.commit
 *        │                                 → TableTransaction.commit → DeltaTable.commit
 *        │                                 → Committer.commit → DeltaLog.tryCommit
 *        │                                 → ObjectStore.putIfAbsent(_delta_log/V.json)
 *        ├ RecordProcessor.commit          state version N (stateful.StatefulQuery.commit
 *        │                                 → StateTransfer.uploadChangelog → putIfAbsent)
 *        ├ WriteAheadLog.done              Checkpoint.writeCommit → putIfAbsent(commits/N);
 *        │                                 purge; Source.committed (consumer group, lag tools)
 *        └ ProgressLog.add                 the progress record
 * </pre>
 *
 * <p>The other progress models change only the model's three steps: {@link
 * dev.tributary.service.engine.TablePositions} (stateless group mode) plans from the sink table's
 * positions and opens fenced writers ({@code TableSink.beginFenced} → {@code
 * DeltaTable.newFencedAppend}), with no log; {@code exchange.ExchangeProgress} (stage 1 of a
 * stateful group pipeline) plans from the consumer group's offsets, and its sink is the Kafka
 * transaction ({@code exchange.ExchangeSink.commit} → {@code sendOffsetsToTransaction} → {@code
 * commitTransaction}). Fencing anywhere on these paths is a {@link
 * dev.tributary.service.engine.PartitionMovedException}, handled by the loop.
 *
 * <p>Crash points ({@link dev.tributary.service.engine.CrashPoints}) mark every gap between two
 * durable steps; the kill -9 tests halt a child JVM there, {@code ProgressModelCrashTest} does the
 * same in process.
 */
package dev.tributary.service.engine;
