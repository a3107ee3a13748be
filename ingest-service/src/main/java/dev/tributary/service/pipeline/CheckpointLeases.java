package dev.tributary.service.pipeline;

import dev.tributary.checkpoint.CheckpointLease;
import dev.tributary.checkpoint.LeaseSettings;
import dev.tributary.config.Durations;
import dev.tributary.config.PipelineSpec;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * The lease a run takes on its checkpoint in exclusive assignment (docs/DESIGN.md, "One owner per
 * checkpoint"). Its duration is a setting of the process, not of the pipeline: how long a start on
 * another machine waits after a {@code kill -9}, against how long a stalled owner is tolerated.
 */
public final class CheckpointLeases {
  /** The system property of the lease duration ({@code 30s} by default). */
  public static final String DURATION_PROPERTY = "tributary.checkpoint.lease-duration";

  /** The environment variable read when the system property is not set. */
  public static final String DURATION_VARIABLE = "TRIBUTARY_CHECKPOINT_LEASE_DURATION";

  private CheckpointLeases() {}

  /**
   * Takes the lease of {@code spec}'s checkpoint in {@code store} and starts renewing it.
   *
   * @throws dev.tributary.checkpoint.CheckpointInUseException if another process holds it
   */
  public static CheckpointLease acquire(PipelineSpec spec, ObjectStore store) throws IOException {
    return CheckpointLease.acquire(store, spec.id(), settings());
  }

  /**
   * The settings of this process: the duration from {@value #DURATION_PROPERTY} or {@value
   * #DURATION_VARIABLE} ({@code 30s}, {@code 2 minutes}, ...), else the default.
   *
   * @throws IllegalArgumentException naming the setting if its value is not a duration of at least
   *     a second
   */
  public static LeaseSettings settings() {
    Optional<String> property = Optional.ofNullable(System.getProperty(DURATION_PROPERTY));
    String name = property.isPresent() ? DURATION_PROPERTY : DURATION_VARIABLE;
    Optional<String> value =
        property.or(() -> Optional.ofNullable(System.getenv(DURATION_VARIABLE)));
    if (value.isEmpty() || value.get().isBlank()) {
      return LeaseSettings.defaults();
    }
    try {
      Duration duration = Durations.parse(value.get());
      return LeaseSettings.defaults().withDuration(duration);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Invalid checkpoint lease duration "
              + name
              + "='"
              + value.get()
              + "': "
              + e.getMessage()
              + "; set a duration of at least 1s, e.g. 30s (the default).",
          e);
    }
  }
}
