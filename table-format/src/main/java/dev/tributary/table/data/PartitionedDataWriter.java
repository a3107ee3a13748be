package dev.tributary.table.data;

import java.io.IOException;
import java.util.List;

/**
 * Writes rows into Parquet data files of one table, one open file per partition, rolling to a new
 * file when the current one reaches the target size. Obtained from {@link DataFiles#newWriter}.
 *
 * <p>Lifecycle: any number of {@link #write} calls, then exactly one of {@link #finish()} (publish
 * everything) or {@link #abort()} (give up). A writer is not thread-safe: one thread drives it.
 *
 * <p>Visibility: a file becomes visible in the store only when it is complete (on roll or in {@code
 * finish}); it is not part of the table until the caller commits an {@code add} action for it.
 * Files published before an {@link #abort()} or a failure are orphans: no commit references them,
 * and vacuum deletes them once they are older than the retention period.
 *
 * <p>Failure: if {@code write} or {@code finish} throws, the writer is failed; every later call
 * except {@code abort}/{@code close} throws {@link IllegalStateException}.
 */
public interface PartitionedDataWriter extends AutoCloseable {

  /**
   * Buffers one row into the file of its partition.
   *
   * @param row values aligned with the FULL table schema, partition columns included, each of the
   *     Java class {@link dev.tributary.table.types.DataType} prescribes; the writer does not keep
   *     the array after the call (binary values are copied as needed)
   * @throws IllegalArgumentException if the row does not fit the schema (wrong arity, a null in a
   *     non-nullable field, a value of the wrong class, a decimal that does not fit its type)
   * @throws IOException if a rolled file could not be written to the store
   */
  void write(Object[] row) throws IOException;

  /**
   * Completes and publishes every open file and returns every file this writer published, in
   * publication order. After it returns, the writer is done: further calls throw {@link
   * IllegalStateException} (and {@link #close()} is a no-op).
   *
   * @return the files written, each completely visible in the store, with statistics
   * @throws IOException if a file could not be completed; the writer is then failed and the caller
   *     should {@link #abort()} it
   */
  List<DataFile> finish() throws IOException;

  /**
   * Discards every open (unpublished) file. Files already published by a roll stay in the store as
   * orphans for vacuum: aborting never deletes anything that is visible. Idempotent; never throws
   * for the discarded files themselves (failures to discard are logged).
   */
  void abort();

  /** {@link #abort()} unless {@link #finish()} completed; a no-op after {@code finish}. */
  @Override
  void close();
}
