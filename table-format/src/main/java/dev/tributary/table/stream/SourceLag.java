package dev.tributary.table.stream;

/**
 * How far a stream's position is behind the table's latest version, for progress records and
 * metrics.
 *
 * @param latestVersion the table's latest version
 * @param versionsBehind versions not completely read (the snapshot counts as its version)
 * @param filesBehind data-changing files added in those versions and not yet read
 * @param bytesBehind their total size
 */
public record SourceLag(
    long latestVersion, long versionsBehind, long filesBehind, long bytesBehind) {}
