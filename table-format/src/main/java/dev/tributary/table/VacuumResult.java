package dev.tributary.table;

import java.util.List;

/**
 * What a vacuum deleted, or for a dry run, would delete.
 *
 * @param files keys of the files, relative to the table root, sorted
 * @param bytes their total size
 * @param deleted false for a dry run (nothing was deleted)
 */
public record VacuumResult(List<String> files, long bytes, boolean deleted) {
  public VacuumResult {
    files = List.copyOf(files);
  }
}
