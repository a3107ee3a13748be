package dev.tributary.table.stream;

/**
 * One row read from a source file, with its provenance, so a row that fails later (a parse or type
 * error downstream) can be named.
 *
 * @param file the file it came from (path, version)
 * @param rowIndex its index within the file, from 0
 * @param values the row in the source's read schema (partition columns filled in)
 */
public record SourceRow(SourceFile file, long rowIndex, Object[] values) {

  /** E.g. {@code row 17 of file 'region=EU/part-….parquet' (version 12, file 0)}. */
  public String provenance() {
    return "row " + rowIndex + " of file " + file;
  }
}
