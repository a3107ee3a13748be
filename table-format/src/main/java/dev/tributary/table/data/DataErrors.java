package dev.tributary.table.data;

import dev.tributary.table.types.DataType;
import java.util.List;

/** Every user-facing error message of the data-file layer, built in one place. */
final class DataErrors {
  private DataErrors() {}

  static String unsupportedPartitionType(String column, DataType type) {
    return "Cannot partition by column '"
        + column
        + "' of type "
        + type.deltaName()
        + ": partition columns must be of a primitive type other than binary;"
        + " choose another partition column or derive a string/long column from it";
  }

  static String unknownPartitionColumn(String column, List<String> schemaColumns) {
    return "Partition column '"
        + column
        + "' is not a top-level column of the table schema "
        + schemaColumns
        + "; fix the partition-by list or add the column to the schema";
  }

  static String duplicatePartitionColumn(String column) {
    return "Partition column '" + column + "' is listed twice; list each partition column once";
  }

  static String noDataColumns(List<String> partitionColumns) {
    return "Every column of the schema is a partition column "
        + partitionColumns
        + ": a data file needs at least one non-partition column; partition by fewer columns";
  }

  static String badPartitionValue(String text, DataType type, String why) {
    return "Cannot parse partition value '"
        + text
        + "' as "
        + type.deltaName()
        + " ("
        + why
        + "); the table's partitionValues were not written by a Delta-compliant writer";
  }

  static String wrongArity(int actual, int expected, List<String> columns) {
    return "Row has "
        + actual
        + " values but the table schema has "
        + expected
        + " columns "
        + columns
        + "; build rows aligned with the full schema, partition columns included";
  }

  static String nullInRequired(String fieldPath) {
    return "Null value for non-nullable field '"
        + fieldPath
        + "'; supply a value or declare the field nullable";
  }

  static String wrongClass(String fieldPath, DataType type, Object value) {
    return "Field '"
        + fieldPath
        + "' of type "
        + type.deltaName()
        + " got a "
        + value.getClass().getName()
        + " ("
        + abbreviate(value)
        + "); see DataType for the Java class each type expects";
  }

  static String decimalDoesNotFit(String fieldPath, DataType type, Object value) {
    return "Field '"
        + fieldPath
        + "' of type "
        + type.deltaName()
        + " cannot hold "
        + value
        + " without rounding or overflow; round it to the column's scale or widen the type";
  }

  static String valueDoesNotFit(
      String fieldPath, DataType type, Object value, ArithmeticException e) {
    return "Field '"
        + fieldPath
        + "' of type "
        + type.deltaName()
        + " cannot store "
        + abbreviate(value)
        + " ("
        + e.getMessage()
        + "); check rows with RowChecks before writing them";
  }

  static String writerFailed(String state) {
    return "This data writer is "
        + state
        + " and accepts no more calls;"
        + " start a new writer (after a failure, abort this one first)";
  }

  static String writeFailed(String storeLocation, String key, Throwable cause) {
    return "Could not write data file '"
        + key
        + "' in "
        + storeLocation
        + ": "
        + cause.getMessage()
        + "; abort this writer and write the batch again (files it already published are orphans"
        + " that vacuum removes)";
  }

  static String readFailed(String storeLocation, String key, Throwable cause) {
    return "Could not read data file '" + key + "' in " + storeLocation + ": " + cause.getMessage();
  }

  static String corruptDeletionVector(String storeLocation, String key, String why) {
    return "Cannot read data file '"
        + key
        + "' of the Delta table at "
        + storeLocation
        + ": its deletion vector is unusable ("
        + why
        + "). Its deleted rows cannot be told apart, so the file is not read; restore the"
        + " deletion vector file, or rewrite the file's rows with the writer that deleted them";
  }

  static String incompatibleColumn(String key, String fieldPath, DataType type, String fileType) {
    return "Data file '"
        + key
        + "' stores column '"
        + fieldPath
        + "' as "
        + fileType
        + ", which cannot be read as "
        + type.deltaName()
        + "; the file was not written for this table schema";
  }

  static String malformedVariant(String key, String fieldPath, String why) {
    return "Data file '"
        + key
        + "' holds a variant in column '"
        + fieldPath
        + "' that is not in the Variant binary encoding ("
        + why
        + "); the file was not written by a Delta-compliant writer";
  }

  static String truncatedFile(String key, long position, long length) {
    return "Unexpected end of data file '"
        + key
        + "' at byte "
        + position
        + " of "
        + length
        + "; the object is truncated or was replaced while being read";
  }

  static String nulInPartitionValue(String column) {
    return "partition column '"
        + column
        + "': the value contains a NUL character, which no file system"
        + " or object store accepts in a directory name";
  }

  static String partitionSegmentTooLong(String column, int bytes, int max) {
    return "partition column '"
        + column
        + "': the value makes a directory name of "
        + bytes
        + " bytes (escaped), above the "
        + max
        + "-byte file-name limit; partition by a shorter value"
        + " (a prefix or a hash of it)";
  }

  static String partitionDirectoryTooLong(int bytes, int max) {
    return "partition columns: the values make a partition directory of about "
        + bytes
        + " bytes (escaped), above the "
        + max
        + " bytes this writer allows (an S3 key holds at most 1024"
        + " bytes with the table path and the file name); partition by shorter values";
  }

  static String timestampOutOfRange(String fieldPath, Object value) {
    return "column '"
        + fieldPath
        + "': timestamp "
        + abbreviate(value)
        + " is outside the years 0001-9999 that Delta and Spark timestamps hold";
  }

  static String dateOutOfRange(String fieldPath, Object value) {
    return "column '"
        + fieldPath
        + "': date "
        + abbreviate(value)
        + " is outside the years 0001-9999 that Delta and Spark dates hold";
  }

  static String unpairedSurrogate(String fieldPath, int index) {
    return "column '"
        + fieldPath
        + "': the string has an unpaired UTF-16 surrogate at character "
        + index
        + " (from an escape like \\ud800 in the JSON), which has no UTF-8 encoding";
  }

  static String decimalDoesNotFitColumn(String fieldPath, DataType type, Object value) {
    return "column '"
        + fieldPath
        + "': "
        + abbreviate(value)
        + " does not fit "
        + type.deltaName()
        + " without rounding or overflow";
  }

  static String nullInRequiredColumn(String fieldPath) {
    return "column '" + fieldPath + "': null in a non-nullable column";
  }

  private static String abbreviate(Object value) {
    String s = String.valueOf(value);
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }

  static String pageSizeMismatch(String codec, int expected, int actual) {
    return "A "
        + codec
        + " Parquet page decompressed to "
        + actual
        + " bytes where its header says "
        + expected
        + ": the data file is corrupt; restore it or remove it from the table";
  }

  static String codecNeedsHadoop(String codec) {
    return "Cannot read Parquet pages compressed with "
        + codec
        + ": Tributary reads and writes UNCOMPRESSED, SNAPPY, ZSTD and GZIP itself, other codecs"
        + " need Hadoop's hadoop-client-runtime jar, which the service jar does not ship;"
        + " rewrite the table's files with one of those four codecs";
  }
}
