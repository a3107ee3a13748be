package dev.tributary.table.log;

import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code protocol} action: the minimum reader and writer versions (and, from reader 3 / writer
 * 7, the named table features) a client must support to read or write the table.
 *
 * @param minReaderVersion 1..3
 * @param minWriterVersion 1..7
 * @param readerFeatures written only when minReaderVersion is 3; empty otherwise
 * @param writerFeatures written only when minWriterVersion is 7; empty otherwise
 */
public record Protocol(
    int minReaderVersion,
    int minWriterVersion,
    Set<String> readerFeatures,
    Set<String> writerFeatures)
    implements Action {
  public Protocol {
    readerFeatures = Set.copyOf(readerFeatures == null ? Set.of() : readerFeatures);
    writerFeatures = Set.copyOf(writerFeatures == null ? Set.of() : writerFeatures);
  }

  /** Reader 1 / writer 2, the protocol of every table we create: every Delta reader reads it. */
  public static Protocol ours() {
    return new Protocol(1, 2, Set.of(), Set.of());
  }

  /**
   * This protocol with a reader-writer table feature supported: a legacy protocol moves to reader 3
   * / writer 7, naming the features its legacy writer version implied (writer 2: {@code appendOnly}
   * and {@code invariants}), as PROTOCOL.md requires so that nothing a legacy version guaranteed is
   * lost. Idempotent.
   *
   * @throws IllegalStateException for legacy reader 2 or writers 3..6, whose implied features
   *     (column mapping, constraints, CDF, ...) Tributary does not write
   */
  public Protocol withReaderWriterFeature(String feature) {
    if (minReaderVersion == 2 || (minWriterVersion > 2 && minWriterVersion < 7)) {
      throw new IllegalStateException(
          "protocol "
              + minReaderVersion
              + "/"
              + minWriterVersion
              + " cannot be moved to table features by Tributary");
    }
    Set<String> readers = new TreeSet<>(minReaderVersion == 3 ? readerFeatures : Set.of());
    Set<String> writers = new TreeSet<>(minWriterVersion == 7 ? writerFeatures : Set.of());
    if (minWriterVersion == 2) {
      writers.add("appendOnly");
      writers.add("invariants");
    }
    readers.add(feature);
    writers.add(feature);
    return new Protocol(3, 7, readers, writers);
  }

  /** True if this protocol supports the named reader-writer feature. */
  public boolean supports(String feature) {
    return minReaderVersion == 3
        && minWriterVersion == 7
        && readerFeatures.contains(feature)
        && writerFeatures.contains(feature);
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
