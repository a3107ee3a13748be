package dev.tributary.table.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * The Parquet schema of a table's data files, for interop tests that must show another writer
 * really stored a column the way the case is about (INT96, a legacy list...): without that check a
 * reader test could pass on files that never had the shape.
 */
public final class ParquetFooters {
  private ParquetFooters() {}

  /** The file schema of the first data file (by path) under the table's root directory. */
  public static MessageType firstFileSchema(Path table) throws IOException {
    Path file;
    try (Stream<Path> walk = Files.walk(table)) {
      file =
          walk.filter(p -> p.toString().endsWith(".parquet"))
              .filter(p -> !p.toString().contains("_delta_log"))
              .sorted()
              .findFirst()
              .orElseThrow(() -> new IOException("no data file under " + table));
    }
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      return reader.getFileMetaData().getSchema();
    }
  }
}
