package dev.tributary.config.internal;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * A light syntax check of Spring cron expressions (six fields, seconds first, or a macro such as
 * {@code @daily}), so that a five-field Unix expression is caught when the file is validated rather
 * than when the scheduler starts. The service's scheduler remains the final judge of ranges.
 */
final class Cron {

  private static final Set<String> MACROS =
      Set.of("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly");
  private static final Pattern FIELD = Pattern.compile("[0-9A-Za-z*?/,#\\-]+");

  private Cron() {}

  /**
   * Checks the expression's shape.
   *
   * @throws IllegalArgumentException saying what is wrong and showing a valid example
   */
  static void check(String expression) {
    String value = expression.strip();
    if (MACROS.contains(value)) {
      return;
    }
    String[] fields = value.isEmpty() ? new String[0] : value.split("\\s+");
    if (fields.length != 6) {
      throw new IllegalArgumentException(Messages.cronFieldCount(expression, fields.length));
    }
    for (String field : fields) {
      if (!FIELD.matcher(field).matches()) {
        throw new IllegalArgumentException(Messages.cronField(expression, field));
      }
    }
  }
}
