package dev.tributary.config.internal;

import java.util.Collection;
import java.util.Optional;

/** Finds the valid name closest to a misspelt one (Levenshtein distance). */
final class Suggestions {

  private Suggestions() {}

  /**
   * Returns the candidate nearest to {@code name}, if it is close enough to be a likely typo: at
   * most a third of the name's length away, and at least 1 and at most 3 edits.
   */
  static Optional<String> nearest(String name, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int d = distance(name, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    int allowed = Math.min(3, Math.max(1, name.length() / 3));
    return bestDistance <= allowed ? Optional.ofNullable(best) : Optional.empty();
  }

  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
