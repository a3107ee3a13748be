package dev.tributary.service.compare;

import java.util.List;

/** The messages of {@code tributary compare}'s refusals, in one place. */
final class CompareErrors {
  private CompareErrors() {}

  static String badVersion(String ref, String version) {
    return "bad version '"
        + version
        + "' in '"
        + ref
        + "': a version is a whole number, e.g. "
        + ref.substring(0, ref.length() - version.length())
        + "12 (omit @VERSION for the latest)";
  }

  static String noLocation() {
    return "a table is named by its location, e.g. /data/orders or s3://lake/silver/orders[@12]";
  }

  static String noTable(String location) {
    return "no Delta table at "
        + location
        + " (no commit in its _delta_log/); check the path (a table's root folder, not a data"
        + " file)";
  }

  static String noSuchVersion(String location, long version, long latest) {
    return "version " + version + " of " + location + " does not exist: the latest is " + latest;
  }

  static String versionGone(String location, long version, String reason) {
    return "version "
        + version
        + " of "
        + location
        + " can no longer be read: "
        + reason
        + "; compare a later version";
  }

  static String columnsDiffer(String a, String b, List<String> onlyInA, List<String> onlyInB) {
    StringBuilder out =
        new StringBuilder("the tables have different columns, so no row can be equal: ");
    if (!onlyInA.isEmpty()) {
      out.append(onlyInA).append(" only in ").append(a);
    }
    if (!onlyInB.isEmpty()) {
      out.append(onlyInA.isEmpty() ? "" : ", ").append(onlyInB).append(" only in ").append(b);
    }
    return out.append("; compare the same columns (a view is not supported yet)").toString();
  }

  static String typesDiffer(String column, String a, String typeA, String b, String typeB) {
    return "column "
        + column
        + " is "
        + typeA
        + " in "
        + a
        + " but "
        + typeB
        + " in "
        + b
        + "; compare tables whose columns have the same types";
  }

  static String unknownKey(String column, List<String> columns) {
    return "unknown key column '" + column + "' in --key; the tables' columns are " + columns;
  }

  static String badWhere(String message) {
    return "--where does not compile: " + message;
  }
}
