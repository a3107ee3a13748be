package dev.tributary.table.log;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads Delta table properties such as {@code delta.deletedFileRetentionDuration}. */
public final class TableProperties {
  private static final Pattern INTERVAL =
      Pattern.compile("(?:interval\\s+)?(\\d+)\\s*(second|minute|hour|day|week)s?");

  private TableProperties() {}

  /**
   * A duration property in Delta's interval syntax ({@code "interval 7 days"}, {@code "1 week"}).
   *
   * @throws IllegalArgumentException naming the property if its value is not an interval
   */
  public static Duration duration(Map<String, String> properties, String key, Duration fallback) {
    String value = properties.get(key);
    if (value == null) {
      return fallback;
    }
    Matcher m = INTERVAL.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "table property "
              + key
              + " = '"
              + value
              + "' is not an interval such as 'interval 7 days'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "second" -> Duration.ofSeconds(n);
      case "minute" -> Duration.ofMinutes(n);
      case "hour" -> Duration.ofHours(n);
      case "day" -> Duration.ofDays(n);
      default -> Duration.ofDays(7 * n);
    };
  }
}
