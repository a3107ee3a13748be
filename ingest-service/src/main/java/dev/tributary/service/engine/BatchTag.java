package dev.tributary.service.engine;

import dev.tributary.table.TransactionId;
import java.util.List;
import java.util.Objects;

/**
 * What one batch's commit records in every table it writes, besides its rows: the batch's
 * idempotency key and where the source stood after the batch (see {@link TableTxns}).
 *
 * @param batch {@code txn(<pipeline>@<checkpoint id>, batch id)}: a table holding it (or a later
 *     batch of the same key) skips the batch
 * @param sourcePositions per input partition, {@code txn(<pipeline>:<topic>:<partition>, next
 *     offset)}: facts for a new checkpoint that continues after the table ({@code starting-offsets:
 *     table}), not idempotency keys
 */
public record BatchTag(TransactionId batch, List<TransactionId> sourcePositions) {
  public BatchTag {
    Objects.requireNonNull(batch, "batch");
    sourcePositions = List.copyOf(sourcePositions);
  }

  /** The batch id. */
  public long batchId() {
    return batch.version();
  }
}
