package dev.tributary.service.sink.route;

import java.util.regex.Pattern;

/**
 * Which route values can name a table folder. A name is 1 to {@value #MAX_LENGTH} characters of
 * ASCII letters, digits, {@code .}, {@code _} and {@code -}, starting with a letter or a digit.
 *
 * <p>Why so narrow: the name becomes one segment of an S3 key or a local path, so {@code /}, {@code
 * ..}, control characters and anything a file system or S3 treats specially must not get in; a name
 * starting with {@code _} or {@code .} is hidden from Spark and Delta readers (and {@code
 * _delta_log} is the log's own folder); and letters beyond ASCII would name one table two ways
 * (Unicode normalisation). Kafka topic names ({@code [a-zA-Z0-9._-]}) fit, Debezium's {@code
 * server.schema.table} topics included.
 */
public final class RouteNames {
  /** The longest name: well within S3's 1024-byte keys together with the folder and file names. */
  public static final int MAX_LENGTH = 200;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private RouteNames() {}

  /**
   * Why {@code value} cannot name a table folder, or null when it can.
   *
   * @param value the route expression's value for a row (its text form is the name)
   * @param expression the route expression, for the message
   */
  public static String problem(Object value, String expression) {
    if (value == null) {
      return "route ("
          + expression
          + ") is null for this row; a row without a route value has no table to go to";
    }
    String name = value.toString();
    String why;
    if (name.isEmpty()) {
      why = "it is empty";
    } else if (name.length() > MAX_LENGTH) {
      why = "it is longer than " + MAX_LENGTH + " characters";
    } else if (!NAME.matcher(name).matches()) {
      why =
          "a table folder name holds only letters, digits, '.', '_' and '-' and starts with a"
              + " letter or digit";
    } else {
      return null;
    }
    return "route value '"
        + printable(name)
        + "' (of "
        + expression
        + ") cannot name a table folder: "
        + why;
  }

  /** The name with control characters escaped, cut to a readable length. */
  private static String printable(String name) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < name.length() && b.length() < MAX_LENGTH + 20; i++) {
      char c = name.charAt(i);
      if (Character.isISOControl(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return name.length() > MAX_LENGTH + 20 ? b + "…" : b.toString();
  }
}
