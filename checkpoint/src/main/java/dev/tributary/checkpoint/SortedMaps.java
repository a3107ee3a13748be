package dev.tributary.checkpoint;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/** Defensive copies for the records: sorted (so files are written in a stable order), no nulls. */
final class SortedMaps {
  private SortedMaps() {}

  static <K extends Comparable<K>, V> SortedMap<K, V> copy(Map<K, V> map, String what) {
    Objects.requireNonNull(map, what);
    TreeMap<K, V> copy = new TreeMap<>();
    map.forEach(
        (k, v) -> {
          if (k == null || v == null) {
            throw new NullPointerException(what + " must not hold null keys or values: " + map);
          }
          copy.put(k, v);
        });
    return Collections.unmodifiableSortedMap(copy);
  }
}
