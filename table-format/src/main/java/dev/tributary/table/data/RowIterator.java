package dev.tributary.table.data;

/**
 * The rows of one data file, each with its physical index in the file: the row index a deletion
 * vector names and a row's provenance. Rows a deletion vector deletes are never returned, so the
 * indexes of returned rows may have gaps.
 */
public interface RowIterator extends CloseableIterator<Object[]> {

  /**
   * The index in the file (from 0, counting deleted rows) of the row the last {@link #next()}
   * returned.
   *
   * @throws IllegalStateException before the first {@link #next()}
   */
  long rowIndex();
}
