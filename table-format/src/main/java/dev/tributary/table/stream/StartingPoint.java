package dev.tributary.table.stream;

import java.time.Instant;

/**
 * Where a new stream (one without a stored position) starts, the {@code starting-version} key:
 * Delta's {@code startingVersion} / {@code startingTimestamp} options. The key's text is parsed in
 * one place, the config module's {@code StartingVersion.parse}; the ingest service maps its value
 * to this (the table format does not depend on the configuration).
 */
public sealed interface StartingPoint {

  /**
   * Delta's default (no starting option): the snapshot at the version current when the stream
   * starts, then every later commit.
   */
  record Earliest() implements StartingPoint {}

  /** Delta's {@code startingVersion: latest}: only the commits after the current version. */
  record Latest() implements StartingPoint {}

  /**
   * Delta's {@code startingVersion: <n>}: the changes of commit {@code version} and every later
   * one, without a snapshot.
   *
   * @param version an existing commit version
   */
  record AtVersion(long version) implements StartingPoint {
    public AtVersion {
      if (version < 0) {
        throw new IllegalArgumentException("A starting version must be >= 0, not " + version);
      }
    }
  }

  /**
   * Delta's {@code startingTimestamp}: the changes from the first commit whose timestamp is at or
   * after {@code timestamp}, without a snapshot.
   *
   * @param timestamp the instant
   */
  record AtTimestamp(Instant timestamp) implements StartingPoint {}
}
