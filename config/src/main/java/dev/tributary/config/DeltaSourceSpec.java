package dev.tributary.config;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The {@code source.delta} section: a Delta table read incrementally, the files each new commit
 * adds, in commit order. The table's schema is the input schema (no {@code format} section).
 *
 * @param path the table location: {@code s3://bucket/prefix} or a local path
 * @param startingVersion where a pipeline without a checkpoint starts (default earliest)
 * @param maxFilesPerTrigger the most data files one batch reads (default 1000, Spark's) unless only
 *     {@code maxBytesPerTrigger} is declared
 * @param maxBytesPerTrigger the most data bytes one batch reads (soft: a batch reads at least one
 *     file), if declared
 * @param ignoreDeletes whether commits that only remove whole files (deletes by partition) are
 *     skipped instead of failing the pipeline
 * @param skipChangeCommits whether every commit that removes or rewrites data is skipped entirely
 * @param storage explicit S3 settings of the table, if declared (else the pipeline's {@code
 *     storage})
 */
public record DeltaSourceSpec(
    String path,
    StartingVersion startingVersion,
    OptionalLong maxFilesPerTrigger,
    Optional<Size> maxBytesPerTrigger,
    boolean ignoreDeletes,
    boolean skipChangeCommits,
    Optional<StorageSpec> storage)
    implements SourceSpec {

  /** Checks that no part is null and that the path is given. */
  public DeltaSourceSpec {
    if (Objects.requireNonNull(path, "path").isBlank()) {
      throw new IllegalArgumentException("a source table path cannot be empty");
    }
    Objects.requireNonNull(startingVersion, "startingVersion");
    Objects.requireNonNull(maxFilesPerTrigger, "maxFilesPerTrigger");
    Objects.requireNonNull(maxBytesPerTrigger, "maxBytesPerTrigger");
    Objects.requireNonNull(storage, "storage");
  }

  @Override
  public String kind() {
    return "delta";
  }
}
