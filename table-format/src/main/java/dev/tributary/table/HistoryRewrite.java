package dev.tributary.table;

import java.util.Map;
import java.util.Objects;

/**
 * A commit that took the table's data out wholesale — a {@code RESTORE}, a full overwrite, a {@code
 * REPLACE TABLE} or a {@code TRUNCATE} — as opposed to an edit of some rows (DELETE, UPDATE, MERGE,
 * a {@code replaceWhere} or dynamic partition overwrite) or a rewrite that keeps the rows
 * (OPTIMIZE). A writer that keeps its progress outside the table (a streaming checkpoint) must not
 * go on appending after one: the rows its committed batches wrote may be gone.
 *
 * @param version the commit's version
 * @param operation the commit's {@code commitInfo.operation}
 * @param parameters the commit's {@code commitInfo.operationParameters}, as text
 */
public record HistoryRewrite(long version, String operation, Map<String, String> parameters) {
  public HistoryRewrite {
    Objects.requireNonNull(operation, "operation");
    parameters = Map.copyOf(parameters);
  }

  /**
   * Whether a commit with this {@code commitInfo} took the table's data out wholesale.
   *
   * @param operation {@code commitInfo.operation} (Spark's and Delta's names)
   * @param parameters {@code commitInfo.operationParameters}
   */
  public static boolean rewrites(String operation, Map<String, String> parameters) {
    String op = operation.toUpperCase(java.util.Locale.ROOT);
    if (op.equals("RESTORE") || op.equals("TRUNCATE") || op.contains("REPLACE TABLE")) {
      return true;
    }
    boolean overwrite = "overwrite".equalsIgnoreCase(parameters.getOrDefault("mode", ""));
    boolean partial =
        parameters.containsKey("predicate")
            || parameters.containsKey("replaceWhere")
            || "true".equalsIgnoreCase(parameters.getOrDefault("dynamicPartitionOverwrite", ""));
    return (op.equals("WRITE") || op.startsWith("CREATE")) && overwrite && !partial;
  }

  /** E.g. {@code version 12: RESTORE {version=3}}. */
  public String describe() {
    return "version " + version + ": " + operation + (parameters.isEmpty() ? "" : " " + parameters);
  }
}
