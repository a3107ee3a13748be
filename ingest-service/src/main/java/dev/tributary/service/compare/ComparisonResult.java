package dev.tributary.service.compare;

import java.util.List;
import java.util.Optional;

/**
 * What a comparison found. The row counts are of the rows that pass {@code --where}. {@code
 * onlyInA} is the number of rows of {@code SELECT * FROM a EXCEPT ALL SELECT * FROM b} (a row that
 * is three times in A and once in B counts twice), {@code onlyInB} the reverse.
 *
 * @param rowsA rows of A
 * @param rowsB rows of B
 * @param onlyInA rows of A not matched by an equal row of B
 * @param onlyInB rows of B not matched by an equal row of A
 * @param samplesOnlyInA a few of those rows, in {@link RowText} form
 * @param samplesOnlyInB a few of those rows
 * @param byKey the differences by key, with {@code --key}
 */
public record ComparisonResult(
    long rowsA,
    long rowsB,
    long onlyInA,
    long onlyInB,
    List<String> samplesOnlyInA,
    List<String> samplesOnlyInB,
    Optional<KeyDifferences> byKey) {
  public ComparisonResult {
    samplesOnlyInA = List.copyOf(samplesOnlyInA);
    samplesOnlyInB = List.copyOf(samplesOnlyInB);
  }

  /** Whether the tables hold the same rows, duplicates included. */
  public boolean equal() {
    return onlyInA == 0 && onlyInB == 0;
  }

  /**
   * The differences grouped by key. A key is changed when both tables have it but not with the same
   * rows (the same key, different other columns).
   *
   * @param key the key columns
   * @param keysOnlyInA keys A has and B has not
   * @param keysOnlyInB keys B has and A has not
   * @param changedKeys keys both have, with different rows
   * @param duplicateKeysA keys A has more than one row of (a key is expected to be unique)
   * @param duplicateKeysB keys B has more than one row of
   * @param changes a few changed keys, each with one row of each side that the other lacks
   */
  public record KeyDifferences(
      List<String> key,
      long keysOnlyInA,
      long keysOnlyInB,
      long changedKeys,
      long duplicateKeysA,
      long duplicateKeysB,
      List<Change> changes) {
    public KeyDifferences {
      key = List.copyOf(key);
      changes = List.copyOf(changes);
    }
  }

  /**
   * One changed key.
   *
   * @param key the key's values, in {@link RowText} form
   * @param rowA a row of A with that key that B lacks (null if every A row is in B)
   * @param rowB a row of B with that key that A lacks (null if every B row is in A)
   */
  public record Change(String key, String rowA, String rowB) {}
}
