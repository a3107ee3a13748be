package dev.tributary.checkpoint;

/**
 * A half-open range of source offsets {@code [start, end)}: a batch reads every record whose offset
 * is at least {@code start} and below {@code end}. An empty range ({@code start == end}) records
 * the position of a partition that had no new data.
 *
 * @param start first offset to read, zero or more
 * @param end offset after the last one to read, at least {@code start}
 */
public record OffsetRange(long start, long end) {
  public OffsetRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException(
          "Invalid offset range [" + start + ", " + end + "): need 0 <= start <= end");
    }
  }

  /** Number of offsets in the range. */
  public long count() {
    return end - start;
  }

  /** True if the range holds no offset. */
  public boolean isEmpty() {
    return start == end;
  }
}
