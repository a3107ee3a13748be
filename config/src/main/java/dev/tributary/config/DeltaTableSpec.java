package dev.tributary.config;

import java.util.Objects;

/**
 * A side table ({@code quarantine.delta} or {@code late-events.delta}): a Delta table identified by
 * its location. Its columns are fixed by the service.
 *
 * @param path the table location: {@code s3://bucket/prefix} or a local path
 */
public record DeltaTableSpec(String path) {

  /** Checks the path is not blank. */
  public DeltaTableSpec {
    if (Objects.requireNonNull(path, "path").isBlank()) {
      throw new IllegalArgumentException("a table path cannot be empty");
    }
  }

  /**
   * Returns the default quarantine table of a sink: a sibling at the sink path plus {@code
   * -quarantine}.
   */
  public static DeltaTableSpec quarantineFor(DeltaSinkSpec sink) {
    String base = sink.path();
    while (base.length() > 1 && base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return new DeltaTableSpec(base + "-quarantine");
  }
}
