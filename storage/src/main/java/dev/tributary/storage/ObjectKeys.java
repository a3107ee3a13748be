package dev.tributary.storage;

import java.util.Comparator;

/**
 * Rules shared by every {@link ObjectStore} for keys: what a valid key is and how keys sort.
 *
 * <p>A key is a relative path: non-empty, {@code /}-separated, without a leading or trailing {@code
 * /}, without empty, {@code .} or {@code ..} segments and without NUL characters. These rules keep
 * a key meaning the same object on a local disk and in S3, and keep a local store from ever
 * touching a file outside its root.
 */
public final class ObjectKeys {

  /**
   * The order of {@link ObjectStore#list} results: ascending by Unicode code point, which is the
   * same as the unsigned-byte order of the keys' UTF-8 encodings (S3's listing order). It differs
   * from {@link String#compareTo} only for characters outside the Basic Multilingual Plane.
   */
  public static final Comparator<String> ORDER = ObjectKeys::compare;

  private ObjectKeys() {}

  /**
   * Checks that {@code key} is a valid object key.
   *
   * @return the key itself, for use in expressions
   * @throws IllegalArgumentException naming the key and the rule it breaks
   */
  public static String check(String key) {
    if (key == null) {
      throw new IllegalArgumentException("Object key must not be null");
    }
    String problem = problem(key);
    if (problem != null) {
      throw new IllegalArgumentException(StorageErrors.invalidKey(key, problem));
    }
    return key;
  }

  private static String problem(String key) {
    if (key.isEmpty()) {
      return "it is empty";
    }
    if (key.indexOf('\0') >= 0) {
      return "it contains a NUL character";
    }
    if (key.startsWith("/")) {
      return "it starts with '/' (keys are relative to the store's root)";
    }
    if (key.endsWith("/")) {
      return "it ends with '/' (a key names an object, not a directory)";
    }
    for (String segment : key.split("/", -1)) {
      if (segment.isEmpty()) {
        return "it contains an empty segment ('//')";
      }
      if (segment.equals(".") || segment.equals("..")) {
        return "it contains a '" + segment + "' segment, which could escape the store's root";
      }
    }
    return null;
  }

  /** Checks the limit of {@link ObjectStore#sample}: at least 1. */
  static void checkLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("A listing limit must be at least 1, was " + limit);
    }
  }

  private static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
