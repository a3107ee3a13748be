/**
 * The per-pipeline checkpoint: the write-ahead half of Tributary's exactly-once argument. It owns
 * the checkpoint's {@code metadata} (pipeline id and the declaration parts the checkpoint depends
 * on), the offsets log (the exact source ranges and watermark of every planned batch, written
 * before the batch reads anything), the commits log (written after the table commit) and the
 * versioned state store of stateful operators ({@link dev.tributary.checkpoint.state}).
 *
 * <p>Every file is created with put-if-absent on an {@link dev.tributary.storage.ObjectStore}, so a
 * second process running the same pipeline is detected, never silently interleaved; the
 * checkpoint's lease ({@link dev.tributary.checkpoint.CheckpointLease}) refuses such a process
 * already at start and fences an owner whose lease was taken over. This module is plain Java: it
 * knows sources only as named partitions ({@link dev.tributary.checkpoint.SourcePartition}) with
 * long offsets, and must not use Kafka, Spring or the table format; the service joins checkpoint
 * and table through the pair (pipeline id, batch id). The on-disk format is described in {@code
 * docs/CHECKPOINT_FORMAT.md}.
 */
package dev.tributary.checkpoint;
