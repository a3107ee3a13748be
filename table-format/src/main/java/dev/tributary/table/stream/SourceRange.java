package dev.tributary.table.stream;

import java.util.List;
import java.util.Objects;

/**
 * A planned range {@code [from, to)} of a table's history and the files in it, in commit order.
 * {@code to} may lie past {@code from} with no file in between: the range then only moves past
 * commits with nothing to read (compactions, skipped commits), and the engine records it like any
 * other so those commits are not examined again.
 *
 * @param from the first position of the range
 * @param to the position after the range: where the next range starts
 * @param files the files to read, in order
 */
public record SourceRange(SourcePosition from, SourcePosition to, List<SourceFile> files) {
  public SourceRange {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    files = List.copyOf(files);
    if (to.compareTo(from) < 0) {
      throw new IllegalArgumentException(
          "A range cannot end (" + to + ") before it starts (" + from + ")");
    }
  }

  /** True if the range does not move: nothing new in the table. */
  public boolean isEmpty() {
    return from.equals(to);
  }

  /** Total size of the files, in bytes. */
  public long bytes() {
    long total = 0;
    for (SourceFile f : files) {
      total += f.size();
    }
    return total;
  }

  @Override
  public String toString() {
    return "[" + from + ", " + to + ") " + files.size() + " files";
  }
}
