package dev.tributary.service.join;

import dev.tributary.config.Size;
import dev.tributary.table.types.DataType;
import java.util.List;

/** Every user-facing message of the stream-static joins, each naming the pipeline and the join. */
final class JoinErrors {
  private JoinErrors() {}

  static JoinException tooLarge(
      String pipeline, String where, String path, long version, long bytes, Size limit) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ": the dimension table "
            + path
            + " at version "
            + version
            + " holds "
            + new Size(bytes)
            + " ("
            + bytes
            + " bytes) of data files, more than its max-size of "
            + limit
            + "; it was not loaded. Raise "
            + where
            + ".max-size (the rows take several times their file size"
            + " in memory, so give the service the heap for it), or make the table smaller"
            + " (fewer rows or columns).");
  }

  static JoinException missingKey(
      String pipeline, String where, String path, String key, List<String> columns) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ".on: key '"
            + key
            + "' is not a column of the"
            + " dimension table "
            + path
            + " (its columns: "
            + String.join(", ", columns)
            + "); join on columns both"
            + " sides have, renaming the stream's column with a derive step if needed.");
  }

  static JoinException missingStreamKey(
      String pipeline, String where, String key, List<String> columns) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ".on: key '"
            + key
            + "' is not a column of the"
            + " stream at this join (its columns: "
            + String.join(", ", columns)
            + "); join on a column of the schema,"
            + " a derived column or a column an earlier join adds.");
  }

  static JoinException keyTypes(
      String pipeline, String where, String path, String key, DataType stream, DataType dimension) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ".on: key '"
            + key
            + "' is "
            + stream.deltaName()
            + " in the stream but "
            + dimension.deltaName()
            + " in the dimension table "
            + path
            + "; keys must have the"
            + " same type on both sides: derive a column of type "
            + dimension.deltaName()
            + " (for example with"
            + " CAST) and join on it, or declare the column's type in format.json.schema.");
  }

  static JoinException keyType(String pipeline, String where, String key, DataType type) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ".on: key '"
            + key
            + "' has type "
            + type.deltaName()
            + ", which cannot be a join key (binary and nested columns compare by identity);"
            + " join on a primitive column.");
  }

  static JoinException missingColumn(
      String pipeline, String where, String path, String column, List<String> columns) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ".columns: '"
            + column
            + "' is not a column of"
            + " the dimension table "
            + path
            + " (its columns: "
            + String.join(", ", columns)
            + "); remove it from"
            + " columns.");
  }

  static JoinException clash(String pipeline, String where, String path, String column) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ": the dimension table "
            + path
            + " has a column '"
            + column
            + "' that the stream already has; pick the columns to add with "
            + where
            + ".columns, leaving"
            + " it out, or rename the stream's column with a derive step.");
  }

  static JoinException changed(
      String pipeline, String where, String path, long version, String column, String detail) {
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ": the dimension table "
            + path
            + " changed at"
            + " version "
            + version
            + ": column '"
            + column
            + "' "
            + detail
            + ", but the pipeline's output was fixed"
            + " from the table's schema at start. Restore the column, or restart the pipeline with a sink that"
            + " accepts the new columns.");
  }

  static JoinException unreadable(String pipeline, String where, String path, Exception cause) {
    // the cause's message follows in the one-paragraph rendering of the CLI (and in the log)
    return new JoinException(
        "Pipeline "
            + pipeline
            + ": "
            + where
            + ": cannot read the dimension table "
            + path
            + "; check "
            + where
            + ".delta.path and its storage settings",
        cause);
  }
}
