package dev.tributary.service.stateful;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.Measure;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.WatermarkSpec;
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
 * The expected result of a stateful pipeline over a batched event stream, computed directly from
 * Spark's rules (docs/STATEFUL.md), independently of the operators' code: the sequence of batches
 * is modelled (an empty batch runs only as a no-data batch, when the watermark moved past the one
 * the last batch evicted with and an operator would evict; then no-data batches until none is
 * wanted), each batch with its two watermarks (evict with W_N, judge late rows with W_N-1); rows go
 * through dedup (late when event time <= W_late; keys expire at or before W_evict), then every
 * (row, window) pair is kept or dropped by its window's end (windows are enumerated), and the
 * aggregation is computed over all kept pairs at once, filtered by what the output mode leaves in
 * the table. Sessions are built per batch by sorting, merged when they overlap or touch, and
 * emitted and evicted in append mode. Measures are computed from lists.
 */
final class Oracle {
  record Expected(List<List<Object>> table, List<List<Object>> late) {}

  private Oracle() {}

  static Expected compute(PipelineSpec spec, List<String> columns, List<List<Event>> batches) {
    return new Run(spec, columns).all(batches);
  }

  /** One pipeline's batches: the watermarks, the dedup keys, the kept pairs, the session state. */
  private static final class Run {
    final PipelineSpec spec;
    final List<String> columns;
    final boolean hasWatermark;
    final boolean perPartition;
    final long delayMs;
    final AggregateSpec agg;
    final boolean complete;
    final boolean append;
    long evict; // W_N, micros; starts at the epoch as in Spark
    long late; // W_N-1
    boolean ranABatch;
    final List<List<Object>> lateRows = new ArrayList<>();
    final Map<List<Object>, Long> seen = new HashMap<>(); // dedup key -> expiry (micros)
    final List<Event> survivors = new ArrayList<>(); // dedup output (no aggregation)
    final Map<List<Object>, List<Event>> groups =
        new LinkedHashMap<>(); // window + group key -> kept events
    final Map<List<Object>, List<Session>> sessions =
        new LinkedHashMap<>(); // group -> sessions in state
    final Map<List<Object>, List<Event>> emittedSessions = new LinkedHashMap<>();

    Run(PipelineSpec spec, List<String> columns) {
      this.spec = spec;
      this.columns = columns;
      this.hasWatermark = spec.watermark().isPresent();
      this.perPartition =
          spec.watermark().map(w -> w.policy() == WatermarkSpec.Policy.PER_PARTITION).orElse(false);
      this.delayMs = spec.watermark().map(w -> w.delay().toMillis()).orElse(0L);
      this.agg = spec.aggregate().orElse(null);
      this.complete = spec.outputMode() == OutputMode.COMPLETE;
      this.append = spec.outputMode() == OutputMode.APPEND;
    }

    Expected all(List<List<Event>> batches) {
      for (List<Event> batch : batches) {
        if (!batch.isEmpty() || wantsNoDataBatch()) {
          batch(batch);
        }
      }
      while (wantsNoDataBatch()) {
        batch(List.of());
      }
      return new Expected(table(), lateRows);
    }

    long next = 0; // the watermark computed at the end of the last batch

    boolean wantsNoDataBatch() {
      boolean evicts = spec.deduplicate().isPresent() || agg != null && !complete;
      return ranABatch && hasWatermark && evicts && next > evict;
    }

    void batch(List<Event> batch) {
      if (ranABatch) {
        late = evict;
        evict = next;
      }
      ranABatch = true;
      for (Event e : batch) {
        row(e);
      }
      if (spec.deduplicate().isPresent() && hasWatermark) {
        seen.values().removeIf(expiry -> expiry <= evict);
      }
      if (agg != null && agg.window().orElse(null) instanceof WindowSpec.Session && append) {
        for (Map.Entry<List<Object>, List<Session>> g : sessions.entrySet()) {
          g.getValue()
              .removeIf(
                  s -> {
                    if (s.end > evict) {
                      return false;
                    }
                    emittedSessions.put(key(agg, s.events.get(0), s.start, s.end), s.events);
                    return true;
                  });
        }
      }
      next = hasWatermark ? Math.max(evict, candidate(batch)) : 0;
    }

    /**
     * max(event ms) - delay, globally or as the min over partitions of rows after W_late; else the
     * epoch.
     */
    long candidate(List<Event> batch) {
      Map<Integer, Long> maxMs = new HashMap<>();
      for (Event e : batch) {
        long t = micros(e.ts());
        if (!perPartition || t > late) {
          maxMs.merge(perPartition ? e.partition() : 0, t / 1000, Math::max);
        }
      }
      if (maxMs.isEmpty()) {
        return 0;
      }
      return (Collections.min(maxMs.values()) - delayMs) * 1000;
    }

    void row(Event e) {
      long t = micros(e.ts());
      if (spec.deduplicate().isPresent()) {
        if (hasWatermark && t <= late) {
          lateRows.add(lateRow(e, "deduplicate", null, null));
          return;
        }
        List<Object> key = new ArrayList<>();
        for (String k : spec.deduplicate().get().keys()) {
          key.add(value(e, k));
        }
        if (seen.containsKey(key)) {
          return;
        }
        boolean withTime =
            hasWatermark
                && spec.deduplicate().get().keys().contains(spec.watermark().get().column());
        boolean within = hasWatermark && spec.deduplicate().get().withinWatermark();
        seen.put(key, withTime ? t : within ? t + delayMs * 1000 : Long.MAX_VALUE);
      }
      if (agg == null || agg.running()) {
        survivors.add(e); // a running aggregation is computed over all survivors at the end
      } else {
        aggregate(e, t);
      }
    }

    void aggregate(Event e, long t) {
      WindowSpec window = agg.window().orElseThrow();
      boolean onWatermark = hasWatermark && window.column().equals(spec.watermark().get().column());
      if (window instanceof WindowSpec.Session s) {
        long gap = s.gap().toNanos() / 1000;
        if (onWatermark && t + gap <= late) {
          lateRows.add(lateRow(e, "aggregate", t, t + gap));
          return;
        }
        List<Object> g = new ArrayList<>();
        agg.groupBy().forEach(c -> g.add(value(e, c)));
        List<Session> merged = new ArrayList<>(sessions.getOrDefault(g, List.of()));
        merged.add(new Session(t, t + gap, new ArrayList<>(List.of(e))));
        sessions.put(g, merge(merged));
        return;
      }
      long size =
          (window instanceof WindowSpec.Tumbling tu
                      ? tu.size()
                      : ((WindowSpec.Sliding) window).size())
                  .toNanos()
              / 1000;
      long slide = window instanceof WindowSpec.Sliding sl ? sl.slide().toNanos() / 1000 : size;
      long first = Math.floorDiv(t - size, slide) * slide;
      for (long start = first; start <= t; start += slide) {
        if (t >= start && t < start + size) {
          if (onWatermark && !complete && start + size <= late) {
            lateRows.add(lateRow(e, "aggregate", start, start + size));
            continue;
          }
          groups.computeIfAbsent(key(agg, e, start, start + size), k -> new ArrayList<>()).add(e);
        }
      }
    }

    List<Object> lateRow(Event e, String operator, Long windowStart, Long windowEnd) {
      List<Object> row = new ArrayList<>(Arrays.asList(e.row(columns)));
      row.add(operator);
      row.add(instant(late));
      row.add(windowStart == null ? null : instant(windowStart));
      row.add(windowEnd == null ? null : instant(windowEnd));
      return row;
    }

    List<List<Object>> table() {
      List<List<Object>> table = new ArrayList<>();
      if (agg == null) {
        survivors.forEach(e -> table.add(Arrays.asList(e.row(columns))));
        return table;
      }
      if (agg.running()) {
        return OracleAggregates.running(agg, survivors);
      }
      if (agg.window().orElse(null) instanceof WindowSpec.Session) {
        groups.putAll(emittedSessions);
        if (!append) {
          sessions
              .values()
              .forEach(
                  list ->
                      list.forEach(
                          s -> groups.put(key(agg, s.events.get(0), s.start, s.end), s.events)));
        }
      }
      for (Map.Entry<List<Object>, List<Event>> g : groups.entrySet()) {
        long end = micros((Instant) g.getKey().get(1));
        if (append && !(agg.window().orElse(null) instanceof WindowSpec.Session) && end > evict) {
          continue; // not emitted yet: append writes a window once the eviction watermark reaches
          // its end
        }
        List<Object> row = new ArrayList<>(g.getKey());
        for (Measure m : agg.measures().values()) {
          row.add(measure(m, g.getValue()));
        }
        table.add(row);
      }
      return table;
    }
  }

  /** A session in state: [start, end] and its events. */
  private record Session(long start, long end, List<Event> events) {}

  /**
   * Sessions sorted by start, merged where one starts at or before the previous one's end (Spark's
   * rule).
   */
  private static List<Session> merge(List<Session> in) {
    List<Session> sorted = new ArrayList<>(in);
    sorted.sort(Comparator.comparingLong(Session::start));
    List<Session> out = new ArrayList<>();
    for (Session s : sorted) {
      Session last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && s.start <= last.end) {
        List<Event> events = new ArrayList<>(last.events);
        events.addAll(s.events);
        out.set(out.size() - 1, new Session(last.start, Math.max(last.end, s.end), events));
      } else {
        out.add(s);
      }
    }
    return out;
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
        return values.isEmpty()
            ? null
            : values.stream().mapToDouble(v -> ((Number) v).doubleValue()).sum() / values.size();
      case MIN:
      case MAX:
        {
          TreeMap<Object, Object> sorted = new TreeMap<>();
          values.forEach(v -> sorted.put(v, v));
          return sorted.isEmpty()
              ? null
              : m.function().name().equals("MIN") ? sorted.firstKey() : sorted.lastKey();
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
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
  }
}
