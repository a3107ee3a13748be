package dev.tributary.table.log;

import dev.tributary.table.TableErrors;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which protocols we read and write. We read reader versions 1..3 as long as the table uses no
 * feature that changes how files or rows are read in a way we do not implement (column mapping,
 * deletion vectors, v2 checkpoints...). {@code typeWidening} we read: a data file that stores a
 * column in a narrower type than the table's is converted on read (see the row converters). We
 * write reader 1 / writer 2 tables, and tables whose writer features we honour: {@code appendOnly}
 * (we refuse data-changing removes on such tables), {@code typeWidening} (we record every change in
 * {@code delta.typeChanges} and write the wide type) and {@code invariants}. Column invariants
 * (implied by legacy writer 2, and named once a table moves to table features) we do not evaluate,
 * so a schema declaring {@code delta.invariants} is refused for writing.
 */
public final class ProtocolSupport {
  /** Reader features that do not change what a reader must do to read rows. */
  static final Set<String> READER_FEATURES =
      Set.of("vacuumProtocolCheck", "typeWidening", "deletionVectors");

  /** Writer features we honour. */
  static final Set<String> WRITER_FEATURES =
      Set.of("appendOnly", "invariants", "vacuumProtocolCheck", "typeWidening", "deletionVectors");

  private ProtocolSupport() {}

  /** Throws a {@link dev.tributary.table.TableException} unless we can read this table. */
  public static void checkReadable(String location, long version, Protocol p, Metadata m) {
    int reader = p.minReaderVersion();
    if (reader < 1 || reader > 3) {
      throw TableErrors.unsupportedReader(location, version, reader, List.of());
    }
    if (reader == 2) {
      String mode = m.configuration().getOrDefault("delta.columnMapping.mode", "none");
      if (!mode.equals("none")) {
        throw TableErrors.unsupportedReader(location, version, reader, List.of("columnMapping"));
      }
    }
    if (reader == 3) {
      Set<String> unsupported = new TreeSet<>(p.readerFeatures());
      unsupported.removeAll(READER_FEATURES);
      if (!unsupported.isEmpty()) {
        throw TableErrors.unsupportedReader(location, version, reader, unsupported);
      }
    }
    if (!m.format().provider().equalsIgnoreCase("parquet")) {
      throw TableErrors.unsupported(
          location,
          "data file format '" + m.format().provider() + "'",
          "Only parquet tables can be read.");
    }
  }

  /** Throws a {@link dev.tributary.table.TableException} unless we may commit to this table. */
  public static void checkWritable(String location, long version, Protocol p, Metadata m) {
    checkReadable(location, version, p, m);
    int writer = p.minWriterVersion();
    if (writer > 7 || (writer > 2 && writer < 7)) {
      throw TableErrors.unsupportedWriter(location, version, writer, List.of());
    }
    if (writer == 7) {
      Set<String> unsupported = new TreeSet<>(p.writerFeatures());
      unsupported.removeAll(WRITER_FEATURES);
      if (!unsupported.isEmpty()) {
        throw TableErrors.unsupportedWriter(location, version, writer, unsupported);
      }
    }
    boolean invariants = writer == 2 || (writer == 7 && p.writerFeatures().contains("invariants"));
    if (invariants && m.schemaString().contains("delta.invariants")) {
      throw TableErrors.unsupportedWriter(location, version, writer, List.of("invariants"));
    }
  }

  /** True if the table forbids removing rows ({@code delta.appendOnly=true}). */
  public static boolean appendOnly(Metadata m) {
    return Boolean.parseBoolean(m.configuration().getOrDefault("delta.appendOnly", "false"));
  }
}
