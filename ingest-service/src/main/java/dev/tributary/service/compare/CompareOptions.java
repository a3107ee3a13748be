package dev.tributary.service.compare;

import java.nio.file.Path;

/**
 * How a comparison runs.
 *
 * @param samples how many sample rows to keep of each kind of difference
 * @param spillDirectory where the hash partitions are written (a fresh folder is made inside and
 *     deleted afterwards)
 * @param memoryBudget the bytes one partition may take in memory; the fan-out is chosen so that a
 *     partition of the estimated input fits
 */
public record CompareOptions(int samples, Path spillDirectory, long memoryBudget) {
  /** Sample rows printed per kind of difference by default. */
  public static final int DEFAULT_SAMPLES = 5;

  /** Validates the options. */
  public CompareOptions {
    if (samples < 0 || memoryBudget < 1) {
      throw new IllegalArgumentException(
          "samples must be at least 0 and memoryBudget at least 1 byte");
    }
  }

  /**
   * The defaults: {@value #DEFAULT_SAMPLES} samples, the JVM's temporary folder, and a sixth of the
   * heap per partition (the rest holds the other partitions' write buffers and the reader).
   */
  public static CompareOptions defaults() {
    return new CompareOptions(
        DEFAULT_SAMPLES,
        Path.of(System.getProperty("java.io.tmpdir")),
        Runtime.getRuntime().maxMemory() / 6);
  }
}
