package dev.tributary.table;

import dev.tributary.table.log.AddFile;

/**
 * The rows of a data file that a deletion vector marks deleted: readers of the file skip them. A
 * file without a deletion vector has none.
 */
interface DeletedRows {
  /** The deleted rows of one file. */
  interface Rows {
    /** Whether the row at this position (from 0, in file order) is deleted. */
    boolean contains(long row);
  }

  /** No file has deleted rows. */
  DeletedRows NONE = add -> row -> false;

  /** The deleted rows of {@code add}'s file. */
  Rows of(AddFile add) throws java.io.IOException;

  /** The identity of the file's deletion vector, "" for none. */
  static String id(AddFile add) {
    return "";
  }
}
