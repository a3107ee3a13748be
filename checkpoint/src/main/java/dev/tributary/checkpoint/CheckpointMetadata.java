package dev.tributary.checkpoint;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The checkpoint's identity (file {@code metadata/<version>}): which pipeline owns it and the
 * declaration parts its contents depend on. A new version is written only when parts declared
 * compatible change; any other change is refused at start.
 *
 * @param formatVersion the checkpoint layout version ({@value Checkpoint#FORMAT_VERSION} for this
 *     release)
 * @param version the metadata version, 1 for the first start, increased by compatible changes
 * @param pipelineId the pipeline that owns the checkpoint
 * @param createdAt when the checkpoint was first created (kept across versions)
 * @param writtenAt when this metadata version was written
 * @param identity declaration part name to canonical string, e.g. {@code "group-by" ->
 *     "[customer_id]"}
 * @param checkpointId a random id chosen when the checkpoint is created and kept across versions:
 *     what the tables' {@code txn} actions are keyed by, so a batch of a new checkpoint is never
 *     mistaken for a batch of an old one. Empty for checkpoints created before it existed (their
 *     tables are keyed by the pipeline id alone, which stays valid for them).
 */
public record CheckpointMetadata(
    int formatVersion,
    long version,
    String pipelineId,
    Instant createdAt,
    Instant writtenAt,
    Map<String, String> identity,
    Optional<String> checkpointId) {

  public CheckpointMetadata {
    if (version < 1) {
      throw new IllegalArgumentException("metadata version must be >= 1, got " + version);
    }
    Objects.requireNonNull(pipelineId, "pipelineId");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(writtenAt, "writtenAt");
    identity = SortedMaps.copy(identity, "identity");
    Objects.requireNonNull(checkpointId, "checkpointId");
    checkpointId.ifPresent(
        id -> {
          if (id.isBlank()) {
            throw new IllegalArgumentException("checkpointId must not be blank");
          }
        });
  }
}
