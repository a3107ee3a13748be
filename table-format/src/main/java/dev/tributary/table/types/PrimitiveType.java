package dev.tributary.table.types;

/** The non-parameterized column types; see {@link DataType} for their Java value classes. */
public enum PrimitiveType implements DataType {
  STRING("string"),
  BYTE("byte"),
  SHORT("short"),
  INTEGER("integer"),
  LONG("long"),
  FLOAT("float"),
  DOUBLE("double"),
  BOOLEAN("boolean"),
  TIMESTAMP("timestamp"),
  TIMESTAMP_NTZ("timestamp_ntz"),
  DATE("date"),
  BINARY("binary");

  private final String deltaName;

  PrimitiveType(String deltaName) {
    this.deltaName = deltaName;
  }

  @Override
  public String deltaName() {
    return deltaName;
  }
}
