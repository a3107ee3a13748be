package dev.tributary.table.types;

/** A fixed-point decimal; values are {@link java.math.BigDecimal} with exactly {@code scale}. */
public record DecimalType(int precision, int scale) implements DataType {
  public DecimalType {
    if (precision < 1 || precision > 38) {
      throw new IllegalArgumentException("decimal precision must be 1..38, was " + precision);
    }
    if (scale < 0 || scale > precision) {
      throw new IllegalArgumentException(
          "decimal scale must be 0.." + precision + ", was " + scale);
    }
  }

  @Override
  public String deltaName() {
    return "decimal(" + precision + "," + scale + ")";
  }
}
