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
   * Returns the default quarantine table of a sink: a sibling at the sink path (a routed sink's
   * folder of tables) plus {@code -quarantine}.
   */
  public static DeltaTableSpec quarantineFor(DeltaSinkSpec sink) {
    // a routed sink's quarantine is beside the folder of its tables, never one of them
    String base = sink.tablesFolder();
    while (base.length() > 1 && base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return new DeltaTableSpec(base + "-quarantine");
  }

  /**
   * Returns the default quarantine table of a pipeline without a Delta sink: a sibling of the
   * checkpoint at its location plus {@code -quarantine}.
   */
  public static DeltaTableSpec quarantineBeside(String checkpoint) {
    String base = checkpoint;
    while (base.length() > 1 && base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return new DeltaTableSpec(base + "-quarantine");
  }

  /** The default quarantine table: beside the Delta sink, or beside the checkpoint without one. */
  public static DeltaTableSpec quarantineFor(java.util.List<SinkSpec> sinks, String checkpoint) {
    for (SinkSpec sink : sinks) {
      if (sink instanceof DeltaSinkSpec delta) {
        return quarantineFor(delta);
      }
    }
    return quarantineBeside(checkpoint);
  }
}
