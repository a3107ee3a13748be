package dev.tributary.table.log;

import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code protocol} action: the minimum reader and writer versions (and, from reader 3 /
 * writer 7, the named table features) a client must support to read or write the table.
 *
 * @param minReaderVersion 1..3
 * @param minWriterVersion 1..7
 * @param readerFeatures written only when minReaderVersion is 3; empty otherwise
 * @param writerFeatures written only when minWriterVersion is 7; empty otherwise
 */
public record Protocol(
    int minReaderVersion, int minWriterVersion, Set<String> readerFeatures, Set<String> writerFeatures)
    implements Action {
  public Protocol {
    readerFeatures = Set.copyOf(readerFeatures == null ? Set.of() : readerFeatures);
    writerFeatures = Set.copyOf(writerFeatures == null ? Set.of() : writerFeatures);
  }

  /** Reader 1 / writer 2, the protocol of every table we create: every Delta reader reads it. */
  public static Protocol ours() {
    return new Protocol(1, 2, Set.of(), Set.of());
  }

  @Override
  public String kind() {
    return "protocol";
  }

  /** Features sorted, so error messages and JSON are deterministic. */
  static TreeSet<String> sorted(Set<String> features) {
    return new TreeSet<>(features);
  }
}
