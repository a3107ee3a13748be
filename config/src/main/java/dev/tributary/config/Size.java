package dev.tributary.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A number of bytes, as written in pipeline files: {@code 100B}, {@code 512KB}, {@code 128MB},
 * {@code 1GB}, {@code 1.5 GB}. Multiples are binary (1KB = 1024 bytes), units are case-insensitive
 * and {@code KiB}-style spellings are accepted too.
 *
 * @param bytes the size in bytes, never negative
 */
public record Size(long bytes) {

  private static final Pattern SYNTAX =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgt]?i?b)", Pattern.CASE_INSENSITIVE);
  private static final String[] UNITS = {"B", "KB", "MB", "GB", "TB"};

  /** Checks that the size is not negative. */
  public Size {
    if (bytes < 0) {
      throw new IllegalArgumentException("a size cannot be negative: " + bytes + " bytes");
    }
  }

  /** Returns a size of {@code megabytes} * 1024 * 1024 bytes. */
  public static Size ofMegabytes(long megabytes) {
    return new Size(Math.multiplyExact(megabytes, 1024L * 1024L));
  }

  /**
   * Parses a size written like {@code 128MB}; fractions are rounded to the nearest byte.
   *
   * @throws IllegalArgumentException naming the text and showing the expected syntax when it is not
   *     a size or does not fit in a long
   */
  public static Size parse(String text) {
    Matcher m = SYNTAX.matcher(text == null ? "" : text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "cannot parse '"
              + text
              + "' as a size; write it like 128MB or 1GB (units B, KB, MB, GB, TB)");
    }
    String unit = m.group(2).toUpperCase(Locale.ROOT).replace("I", "");
    int power =
        switch (unit) {
          case "B" -> 0;
          case "KB" -> 1;
          case "MB" -> 2;
          case "GB" -> 3;
          default -> 4;
        };
    BigDecimal bytes =
        new BigDecimal(m.group(1))
            .multiply(BigDecimal.valueOf(1024L).pow(power))
            .setScale(0, RoundingMode.HALF_UP);
    if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(
          "the size '" + text + "' is too large; the maximum is 8191PB");
    }
    return new Size(bytes.longValueExact());
  }

  /**
   * Renders the size for a person reading a report: rounded to one decimal in the largest binary
   * unit it reaches, {@code 512 bytes}, {@code 1.5 KB}, {@code 12.3 MB}, {@code 2 GB}.
   */
  public String rounded() {
    if (bytes < 1024) {
      return bytes + (bytes == 1 ? " byte" : " bytes");
    }
    double value = bytes;
    int unit = 0;
    while (unit < UNITS.length - 1 && value >= 1024) {
      value /= 1024;
      unit++;
    }
    String shown = BigDecimal.valueOf(value).setScale(1, RoundingMode.HALF_UP).toPlainString();
    return (shown.endsWith(".0") ? shown.substring(0, shown.length() - 2) : shown)
        + " "
        + UNITS[unit];
  }

  /** Renders the size in the largest unit that represents it exactly, for example {@code 128MB}. */
  @Override
  public String toString() {
    long value = bytes;
    int unit = 0;
    while (unit < UNITS.length - 1 && value != 0 && value % 1024 == 0) {
      value /= 1024;
      unit++;
    }
    return value + UNITS[unit];
  }
}
