package dev.tributary.table;

import java.util.Objects;

/**
 * Identifies one idempotent write: the table records it as a Delta {@code txn} action, and a second
 * commit with the same appId and a version not above the recorded one is skipped.
 *
 * @param appId the writing application (for Tributary: the pipeline id)
 * @param version the application's monotonically increasing batch number (>= 0)
 */
public record TransactionId(String appId, long version) {
  public TransactionId {
    Objects.requireNonNull(appId, "appId");
    if (appId.isBlank()) {
      throw new IllegalArgumentException("appId must not be blank");
    }
    if (version < 0) {
      throw new IllegalArgumentException("transaction version must be >= 0, was " + version);
    }
  }
}
