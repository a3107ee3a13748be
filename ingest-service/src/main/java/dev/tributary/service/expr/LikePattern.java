package dev.tributary.service.expr;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A compiled {@code LIKE} / {@code ILIKE} pattern matched without a regular expression, so no
 * record can make a match backtrack: a pattern like {@code '%a%a%a%b'} against a long run of {@code
 * a}s costs a backtracking regex exponential time, and this matcher O(text length × pattern
 * length).
 *
 * <p>The pattern is cut at every {@code %} into segments of literal characters and {@code _}
 * (exactly one character). The first segment must match at the start, the last at the end, and
 * every segment in between is placed at its leftmost match after the previous one: since {@code %}
 * matches any run, the leftmost placement never rules out a match that a later one would allow.
 * Characters are code points, as in Spark (a {@code _} matches one, even outside the BMP).
 */
final class LikePattern implements Predicate<String> {
  private static final int ANY_ONE = -1;

  private final int[][] segments;
  private final boolean anchoredStart;
  private final boolean anchoredEnd;
  private final boolean ignoreCase;

  private LikePattern(
      int[][] segments, boolean anchoredStart, boolean anchoredEnd, boolean ignoreCase) {
    this.segments = segments;
    this.anchoredStart = anchoredStart;
    this.anchoredEnd = anchoredEnd;
    this.ignoreCase = ignoreCase;
  }

  /**
   * Compiles {@code pattern}.
   *
   * @throws IllegalArgumentException if it ends with the escape character
   */
  static LikePattern compile(String pattern, char escape, boolean ignoreCase) {
    List<int[]> segments = new ArrayList<>();
    List<Integer> current = new ArrayList<>();
    boolean anchoredStart = true;
    boolean anchoredEnd = true;
    int[] cps = pattern.codePoints().toArray();
    for (int i = 0; i < cps.length; i++) {
      int c = cps[i];
      if (c == escape) {
        if (i + 1 == cps.length) {
          throw new IllegalArgumentException(
              "LIKE pattern '" + pattern + "' ends with the escape character '" + escape + "'");
        }
        current.add(fold(cps[++i], ignoreCase));
        anchoredEnd = true;
      } else if (c == '%') {
        if (segments.isEmpty() && current.isEmpty() && i == 0) {
          anchoredStart = false;
        }
        segments.add(toArray(current));
        current.clear();
        anchoredEnd = false;
      } else {
        current.add(c == '_' ? ANY_ONE : fold(c, ignoreCase));
        anchoredEnd = true;
      }
    }
    segments.add(toArray(current));
    return new LikePattern(segments.toArray(new int[0][]), anchoredStart, anchoredEnd, ignoreCase);
  }

  @Override
  public boolean test(String text) {
    int[] s = text.codePoints().toArray();
    int last = segments.length - 1;
    if (last == 0) { // no %: the one segment is the whole text
      return s.length == segments[0].length && matchesAt(s, 0, segments[0]);
    }
    int from = 0;
    int to = s.length;
    int first = 0;
    if (anchoredStart) {
      if (!matchesAt(s, 0, segments[0]) || segments[0].length > s.length) {
        return false;
      }
      from = segments[0].length;
      first = 1;
    }
    int end = last;
    if (anchoredEnd) {
      int[] tail = segments[last];
      int start = s.length - tail.length;
      if (start < from || !matchesAt(s, start, tail)) {
        return false;
      }
      to = start;
      end = last - 1;
    }
    for (int k = first; k <= end; k++) {
      int[] segment = segments[k];
      int at = find(s, from, to, segment);
      if (at < 0) {
        return false;
      }
      from = at + segment.length;
    }
    return true;
  }

  /** The leftmost position in {@code [from, to)} where {@code segment} fits entirely, or -1. */
  private int find(int[] s, int from, int to, int[] segment) {
    for (int at = from; at + segment.length <= to; at++) {
      if (matchesAt(s, at, segment)) {
        return at;
      }
    }
    return -1;
  }

  private boolean matchesAt(int[] s, int at, int[] segment) {
    if (at < 0 || at + segment.length > s.length) {
      return false;
    }
    for (int i = 0; i < segment.length; i++) {
      int p = segment[i];
      if (p != ANY_ONE && p != fold(s[at + i], ignoreCase)) {
        return false;
      }
    }
    return true;
  }

  /** Case folding as a case-insensitive regex with UNICODE_CASE compares characters. */
  private static int fold(int c, boolean ignoreCase) {
    return ignoreCase ? Character.toLowerCase(Character.toUpperCase(c)) : c;
  }

  private static int[] toArray(List<Integer> values) {
    int[] out = new int[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }
}
