package dev.tributary.table.log;

import java.util.Objects;

/**
 * The {@code txn} action: application {@code appId} has committed its batch {@code version}. The
 * latest one per appId is the table's record of which batches it holds (idempotent writes).
 *
 * @param appId application id (for Tributary: {@code <pipeline id>@<checkpoint id>}, or {@code
 *     <pipeline id>:<topic>:<partition>} for a partition's position)
 * @param version the application's own monotonically increasing version (the batch id)
 * @param lastUpdated epoch milliseconds of the commit, or null
 */
public record SetTransaction(String appId, long version, Long lastUpdated) implements Action {
  public SetTransaction {
    Objects.requireNonNull(appId, "appId");
  }

  @Override
  public String kind() {
    return "txn";
  }
}
