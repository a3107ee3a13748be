package dev.tributary.service.stateful;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.Measure;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.WindowSpec;
import dev.tributary.service.stateful.EventStream.Event;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The expected result of a stateful pipeline over a batched event stream, computed directly:
 * first which events the watermark of their batch makes late, then which duplicates are dropped,
 * then the aggregation over all surviving events at once (no state, no eviction), filtered by
 * what the output mode leaves in the table. Independent of the operators' code: windows are
 * enumerated, sessions built by sorting, measures computed from lists.
 */
final class Oracle {
  record Expected(List<List<Object>> table, List<List<Object>> late) {}

  private Oracle() {}

  static Expected compute(PipelineSpec spec, List<String> columns, List<List<Event>> batches) {
    long delay = spec.watermark().map(w -> w.delay().toNanos() / 1000).orElse(0L);
    boolean hasWatermark = spec.watermark().isPresent();
    Long watermark = null;
    List<Event> surviving = new ArrayList<>();
    List<List<Object>> late = new ArrayList<>();
    Map<List<Object>, Long> seen = new HashMap<>();
    for (List<Event> batch : batches) {
      Map<Integer, Long> maxByPartition = new HashMap<>();
      for (Event e : batch) {
        long t = micros(e.ts());
        maxByPartition.merge(e.partition(), t, Math::max);
        if (watermark != null && t < watermark) {
          late.add(Arrays.asList(e.row(columns)));
          continue;
        }
        if (spec.deduplicate().isPresent()) {
          List<Object> key = new ArrayList<>();
          for (String k : spec.deduplicate().get().keys()) {
            key.add(value(e, k));
          }
          if (seen.containsKey(key)) {
            continue;
          }
          boolean withTime = hasWatermark && spec.deduplicate().get().keys().contains(spec.watermark().get().column());
          boolean within = spec.deduplicate().get().withinWatermark();
          seen.put(key, withTime ? t : within ? t + delay : Long.MAX_VALUE);
        }
        surviving.add(e);
      }
      if (watermark != null) {
        long w = watermark;
        seen.values().removeIf(expiry -> expiry < w);
      }
      // the slowest partition of those with events in the batch sets the pace
      if (hasWatermark && !maxByPartition.isEmpty()) {
        long slowest = Collections.min(maxByPartition.values());
        watermark = watermark == null ? slowest - delay : Math.max(watermark, slowest - delay);
      }
    }
    if (spec.aggregate().isEmpty()) {
      List<List<Object>> rows = new ArrayList<>();
      surviving.forEach(e -> rows.add(Arrays.asList(e.row(columns))));
      return new Expected(rows, late);
    }
    AggregateSpec agg = spec.aggregate().get();
    if (agg.running()) {
      return new Expected(OracleAggregates.running(agg, surviving), late);
    }
    Map<List<Object>, List<Event>> groups = new LinkedHashMap<>();
    WindowSpec window = agg.window().orElseThrow();
    if (window instanceof WindowSpec.Session s) {
      sessions(agg, s.gap().toNanos() / 1000, surviving, groups);
    } else {
      long size = (window instanceof WindowSpec.Tumbling t ? t.size() : ((WindowSpec.Sliding) window).size()).toNanos() / 1000;
      long slide = window instanceof WindowSpec.Sliding sl ? sl.slide().toNanos() / 1000 : size;
      for (Event e : surviving) {
        long t = micros(e.ts());
        long first = Math.floorDiv(t - size, slide) * slide;
        for (long start = first; start <= t; start += slide) {
          if (t >= start && t < start + size) {
            groups.computeIfAbsent(key(agg, e, start, start + size), k -> new ArrayList<>()).add(e);
          }
        }
      }
    }
    boolean appendOnly = spec.outputMode() == OutputMode.APPEND;
    List<List<Object>> table = new ArrayList<>();
    for (Map.Entry<List<Object>, List<Event>> g : groups.entrySet()) {
      long end = micros((Instant) g.getKey().get(1));
      if (appendOnly && (watermark == null || end > watermark)) {
        continue;
      }
      List<Object> row = new ArrayList<>(g.getKey());
      for (Measure m : agg.measures().values()) {
        row.add(measure(m, g.getValue()));
      }
      table.add(row);
    }
    return new Expected(table, late);
  }

  private static void sessions(AggregateSpec agg, long gap, List<Event> events, Map<List<Object>, List<Event>> out) {
    Map<List<Object>, List<Event>> byGroup = new LinkedHashMap<>();
    for (Event e : events) {
      List<Object> g = new ArrayList<>();
      agg.groupBy().forEach(c -> g.add(value(e, c)));
      byGroup.computeIfAbsent(g, k -> new ArrayList<>()).add(e);
    }
    for (List<Event> list : byGroup.values()) {
      list.sort(Comparator.comparing(Event::ts));
      List<Event> current = new ArrayList<>();
      long start = 0;
      long end = Long.MIN_VALUE;
      for (Event e : list) {
        long t = micros(e.ts());
        if (t >= end && !current.isEmpty()) {
          out.put(key(agg, current.get(0), start, end), current);
          current = new ArrayList<>();
        }
        if (current.isEmpty()) {
          start = t;
          end = t + gap;
        }
        current.add(e);
        end = Math.max(end, t + gap);
      }
      if (!current.isEmpty()) {
        out.put(key(agg, current.get(0), start, end), current);
      }
    }
  }

  private static List<Object> key(AggregateSpec agg, Event e, long start, long end) {
    List<Object> k = new ArrayList<>(List.of(instant(start), instant(end)));
    agg.groupBy().forEach(c -> k.add(value(e, c)));
    return k;
  }

  static Object measure(Measure m, List<Event> events) {
    List<Object> values = new ArrayList<>();
    for (Event e : events) {
      Object v = m.input().isPresent() ? value(e, m.input().get()) : "row";
      if (v != null) {
        values.add(v);
      }
    }
    switch (m.function()) {
      case COUNT:
        return (long) values.size();
      case COUNT_DISTINCT:
        return (long) new HashSet<>(values).size();
      case SUM:
        if (values.isEmpty()) {
          return null;
        }
        if (values.get(0) instanceof BigDecimal) {
          return values.stream().map(BigDecimal.class::cast).reduce(BigDecimal::add).orElseThrow();
        }
        return values.stream().mapToLong(v -> ((Number) v).longValue()).sum();
      case AVG:
        return values.isEmpty() ? null : values.stream().mapToDouble(v -> ((Number) v).doubleValue()).sum() / values.size();
      case MIN:
      case MAX: {
        TreeMap<Object, Object> sorted = new TreeMap<>();
        values.forEach(v -> sorted.put(v, v));
        return sorted.isEmpty() ? null : m.function().name().equals("MIN") ? sorted.firstKey() : sorted.lastKey();
      }
      default:
        return OracleAggregates.measure(m, events);
    }
  }

  static Object value(Event e, String column) {
    return switch (column) {
      case "event_id" -> e.id();
      case "user_id" -> e.user();
      case "event_type" -> e.type();
      case "event_ts" -> e.ts();
      case "amount" -> e.amount();
      case "quantity" -> e.quantity();
      default -> throw new IllegalArgumentException(Objects.toString(column));
    };
  }

  static long micros(Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
  }

  static Instant instant(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
  }
}
