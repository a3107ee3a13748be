package dev.tributary.table.stream;

/**
 * How much one planned range may hold: Delta's {@code maxFilesPerTrigger} and {@code
 * maxBytesPerTrigger} (the {@code max-files-per-trigger} / {@code max-bytes-per-trigger} keys). As
 * in Delta's {@code AdmissionLimits}, a file is admitted while both budgets are positive, before
 * taking its size off: the file limit is exact, the byte limit soft (a range always holds at least
 * one file, and may end one file past the byte limit).
 *
 * @param maxFiles files per range, {@code >= 1}
 * @param maxBytes bytes per range, {@code >= 1}
 */
public record SourceLimits(long maxFiles, long maxBytes) {
  /** Delta's {@code DeltaOptions.MAX_FILES_PER_TRIGGER_OPTION_DEFAULT}. */
  public static final int DEFAULT_MAX_FILES = 1000;

  public SourceLimits {
    if (maxFiles < 1 || maxBytes < 1) {
      throw new IllegalArgumentException(
          "max-files-per-trigger and max-bytes-per-trigger must be >= 1, not "
              + maxFiles
              + "/"
              + maxBytes);
    }
  }

  /** Delta's default: 1000 files, no byte limit. */
  public static SourceLimits defaults() {
    return of(null, null);
  }

  /**
   * No limit: everything available (Delta's {@code ReadLimit.allAvailable}, available-now's end).
   */
  public static SourceLimits unlimited() {
    return new SourceLimits(Long.MAX_VALUE, Long.MAX_VALUE);
  }

  /**
   * The limits from the optional keys, with Delta's defaulting: without {@code maxFiles}, 1000
   * files if no byte limit is given, and no file limit if one is.
   */
  public static SourceLimits of(Long maxFiles, Long maxBytes) {
    long files =
        maxFiles != null ? maxFiles : maxBytes == null ? DEFAULT_MAX_FILES : Long.MAX_VALUE;
    return new SourceLimits(files, maxBytes != null ? maxBytes : Long.MAX_VALUE);
  }

  /** A fresh budget for one range. */
  Admission admission() {
    return new Admission(maxFiles, maxBytes);
  }

  /** The remaining budget of one range being planned. Not thread-safe. */
  static final class Admission {
    private long files;
    private long bytes;

    private Admission(long files, long bytes) {
      this.files = files;
      this.bytes = bytes;
    }

    boolean hasCapacity() {
      return files > 0 && bytes > 0;
    }

    /** Admits a file of {@code size} bytes if there is capacity left. */
    boolean admit(long size) {
      if (!hasCapacity()) {
        return false;
      }
      files--;
      bytes -= size;
      return true;
    }
  }
}
