package dev.tributary.service.source;

/**
 * The offsets one batch reads from one partition: {@code [start, end)}. An empty range
 * ({@code start == end}) reads nothing.
 */
public record OffsetRange(long start, long end) {
  public OffsetRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("invalid offset range [" + start + ", " + end + ")");
    }
  }

  public long size() {
    return end - start;
  }

  public boolean isEmpty() {
    return start == end;
  }
}
