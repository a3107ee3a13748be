package dev.tributary.checkpoint.state;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One key and its value, as a scan returns them.
 *
 * <p>Not a record on purpose: scans over large state return millions of entries, and a record's
 * defensive copies (in the constructor and every accessor) would copy each array three more times.
 * Instead the store creates fresh arrays for every entry and hands them over: the caller owns them
 * and may keep or modify them. Equality is by content.
 */
public final class StateEntry {
  private final byte[] key;
  private final byte[] value;

  /** An entry that takes ownership of the given arrays (the caller must not modify them). */
  public StateEntry(byte[] key, byte[] value) {
    this.key = Objects.requireNonNull(key, "key");
    this.value = Objects.requireNonNull(value, "value");
  }

  /** The key; this entry's own array. */
  public byte[] key() {
    return key;
  }

  /** The value; this entry's own array. */
  public byte[] value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StateEntry e && Arrays.equals(key, e.key) && Arrays.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return HexFormat.of().formatHex(key) + "=" + HexFormat.of().formatHex(value);
  }
}
