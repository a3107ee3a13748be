package dev.tributary.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Defensive copies of maps whose declaration order matters (derive columns, measures). */
final class OrderedMaps {

  private OrderedMaps() {}

  /** Returns an unmodifiable copy keeping the iteration order; null keys and values are refused. */
  static <K, V> Map<K, V> copyOf(Map<K, V> map) {
    Map<K, V> copy = new LinkedHashMap<>();
    map.forEach(
        (k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value")));
    return Collections.unmodifiableMap(copy);
  }
}
