package dev.tributary.service.compare;

import java.util.OptionalLong;

/**
 * A table named on the command line: {@code LOCATION[@VERSION]}. The text after the last {@code @}
 * is a version when it holds no {@code /} (so a folder named {@code a@b} in the middle of a path is
 * still a path).
 *
 * @param location a local path or {@code s3://bucket/prefix}
 * @param version the version to read, or empty for the latest
 */
public record TableRef(String location, OptionalLong version) {

  /**
   * Parses {@code LOCATION[@VERSION]}.
   *
   * @throws IllegalArgumentException if the location is empty or the version is not a non-negative
   *     whole number (the message says how to write it)
   */
  public static TableRef parse(String text) {
    int at = text.lastIndexOf('@');
    if (at < 0 || text.indexOf('/', at) >= 0) {
      return of(text, OptionalLong.empty());
    }
    String version = text.substring(at + 1);
    if (!version.matches("[0-9]{1,18}")) {
      throw new IllegalArgumentException(CompareErrors.badVersion(text, version));
    }
    return of(text.substring(0, at), OptionalLong.of(Long.parseLong(version)));
  }

  private static TableRef of(String location, OptionalLong version) {
    if (location.isBlank()) {
      throw new IllegalArgumentException(CompareErrors.noLocation());
    }
    return new TableRef(location, version);
  }

  /** The reference as it was written: {@code location} or {@code location@version}. */
  @Override
  public String toString() {
    return version.isPresent() ? location + "@" + version.getAsLong() : location;
  }
}
