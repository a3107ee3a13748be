package dev.tributary.service.parse;

import java.util.Objects;

/**
 * The outcome of parsing one record: either a {@link Success} holding the row, a {@link Failure}
 * holding a message that names the field and the problem (it becomes the {@code error} column of
 * the quarantine table), or a {@link Skipped} record that is well formed but carries no row (a
 * Debezium transaction boundary or heartbeat): counted as filtered, neither written nor
 * quarantined.
 */
public sealed interface ParseResult
    permits ParseResult.Success, ParseResult.Failure, ParseResult.Skipped {

  /** A parsed row. */
  static ParseResult success(Object[] row) {
    return new Success(row);
  }

  /** A record that could not be parsed, with a message for humans. */
  static ParseResult failure(String error) {
    return new Failure(error);
  }

  /** A record that is well formed but holds no row, with what it is (for logs). */
  static ParseResult skipped(String reason) {
    return new Skipped(reason);
  }

  /** True for a {@link Success}. */
  boolean isSuccess();

  /**
   * A parsed row aligned with the parser's schema. The array is handed over, not copied: the parser
   * allocates a fresh one per record and keeps no reference to it, and a copy per record on the hot
   * path would cost throughput for no safety gain. {@code extras} is what a parser with schema
   * evolution found beyond the declared columns ({@link JsonRecordParser#withEvolution}), null when
   * nothing (always null without evolution).
   */
  record Success(Object[] row, DecodedExtras extras) implements ParseResult {
    public Success {
      Objects.requireNonNull(row, "row");
    }

    /** A row without schema-evolution extras. */
    public Success(Object[] row) {
      this(row, null);
    }

    @Override
    public boolean isSuccess() {
      return true;
    }
  }

  /** A record that was rejected; {@code error} says which field and why. */
  record Failure(String error) implements ParseResult {
    public Failure {
      Objects.requireNonNull(error, "error");
    }

    @Override
    public boolean isSuccess() {
      return false;
    }
  }

  /**
   * A well-formed record that holds no row (only decoders of an envelope return it: a Debezium
   * transaction boundary, heartbeat or schema change, a skipped truncate, a tombstone of an
   * appending pipeline); {@code reason} says what it was.
   */
  record Skipped(String reason) implements ParseResult {
    public Skipped {
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public boolean isSuccess() {
      return false;
    }
  }
}
