package dev.tributary.checkpoint.internal;

import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Key names inside a checkpoint. Numbers are zero-padded to 20 digits so that the store's sorted
 * listing is numeric order (Long.MAX_VALUE has 19 digits).
 */
public final class LogKeys {
  public static final String METADATA_DIR = "metadata/";
  public static final String OFFSETS_DIR = "offsets/";
  public static final String COMMITS_DIR = "commits/";
  public static final String LEASE_DIR = "lease/";

  private static final Pattern NUMBER = Pattern.compile("\\d{20}");

  private LogKeys() {}

  /** {@code dir} followed by {@code n} zero-padded to 20 digits. */
  public static String numbered(String dir, long n) {
    return dir + String.format("%020d", n);
  }

  /**
   * The number in a key {@code dir + 20 digits}, or empty for any other name (a stray file such as
   * an editor backup, which the logs do not own).
   */
  public static OptionalLong parse(String dir, String key) {
    if (!key.startsWith(dir)) {
      return OptionalLong.empty();
    }
    String name = key.substring(dir.length());
    if (!NUMBER.matcher(name).matches()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(name));
    } catch (NumberFormatException tooLarge) {
      return OptionalLong.empty();
    }
  }
}
