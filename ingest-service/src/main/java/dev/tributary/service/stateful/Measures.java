package dev.tributary.service.stateful;

import dev.tributary.config.Measure;
import dev.tributary.config.MeasureFunction;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;
import org.apache.datasketches.hll.Union;

/**
 * The measures of an aggregation compiled against the input schema. A group's running state is a
 * buffer of slots ({@code Object[]}): count, count(col), count_distinct keep a Long; sum, min, max
 * the running value (null until a non-null input); avg a Double sum and a Long count; first and
 * last the value (null included) and a Boolean "a row was seen"; approx_count_distinct an {@link
 * HllSketch} on the heap, encoded as its compact bytes in state (null until a non-null input). The
 * distinct values of count_distinct live in their own state keys (see {@link WindowAggregator}),
 * not in the buffer, so a large distinct set never sits on the heap.
 *
 * <p>Result types follow Spark: count*, approx_count_distinct are long; sum of int/long is long, of
 * double is double, of decimal(p,s) is decimal(min(38, p+10), s); min/max/first/last keep the input
 * type; avg is double.
 *
 * <p>first/last are Spark's with ignoreNulls=false: the value of the first (last) row in input
 * order, even when it is null. A buffer restored from state holds earlier batches' rows, which come
 * before this batch's, so first keeps the restored value and last takes the newest row's.
 */
final class Measures {
  private final List<MeasureFunction> functions = new ArrayList<>();
  private final List<Integer> inputs = new ArrayList<>();
  private final List<Integer> slots = new ArrayList<>();
  private final List<StructField> outputFields = new ArrayList<>();
  private int slotCount;

  /**
   * log2 of the sketch's register count. HLL's relative standard error is about 0.83/sqrt(2^lgK)
   * (DataSketches' own bound for lgK 11: 1.84%), well inside Spark's default rsd of 5% for
   * approx_count_distinct, at 1 KB per group in full mode (much less while the count is small).
   */
  static final int SKETCH_LG_K = 11;

  private static final TgtHllType SKETCH_TYPE = TgtHllType.HLL_4;

  /**
   * @param problems receives one message per measure that does not fit the input schema
   */
  Measures(Map<String, Measure> measures, StructType input, List<String> problems) {
    this(measures, input, name -> false, problems);
  }

  /**
   * @param later true for an input column that is not in {@code input} yet but comes from a join
   *     (checked against the joined schema at start); such a measure is left out of this instance
   */
  Measures(
      Map<String, Measure> measures,
      StructType input,
      Predicate<String> later,
      List<String> problems) {
    for (Map.Entry<String, Measure> e : measures.entrySet()) {
      Measure m = e.getValue();
      int column = -1;
      DataType type = null;
      if (m.input().isPresent()) {
        column = input.indexOf(m.input().get());
        if (column < 0) {
          if (!later.test(m.input().get())) {
            problems.add(
                StatefulPlan.missingColumn(
                    "aggregate.measures." + e.getKey(), m.input().get(), input));
          }
          continue;
        }
        type = input.fields().get(column).type();
      }
      DataType out = resultType(m.function(), type);
      if (out == null) {
        problems.add(
            "aggregate.measures."
                + e.getKey()
                + ": "
                + m.function().keyword()
                + " needs a numeric column but '"
                + m.input().orElse("")
                + "' is "
                + type.deltaName()
                + "; cast it in a derive step, or use min/max/count");
        continue;
      }
      functions.add(m.function());
      inputs.add(column);
      slots.add(slotCount);
      slotCount += twoSlots(m.function()) ? 2 : 1;
      outputFields.add(StructField.nullable(e.getKey(), out));
    }
  }

  private static DataType resultType(MeasureFunction f, DataType in) {
    switch (f) {
      case COUNT:
      case COUNT_DISTINCT:
        return PrimitiveType.LONG;
      case MIN:
      case MAX:
      case FIRST:
      case LAST:
        return in;
      case APPROX_COUNT_DISTINCT:
        return PrimitiveType.LONG;
      case AVG:
        return numeric(in) ? PrimitiveType.DOUBLE : null;
      case SUM:
        if (in == PrimitiveType.INTEGER || in == PrimitiveType.LONG) {
          return PrimitiveType.LONG;
        }
        if (in == PrimitiveType.DOUBLE) {
          return PrimitiveType.DOUBLE;
        }
        if (in instanceof DecimalType d) {
          return new DecimalType(Math.min(38, d.precision() + 10), d.scale());
        }
        return null;
      default:
        throw new IllegalStateException("unknown measure function " + f);
    }
  }

  private static boolean twoSlots(MeasureFunction f) {
    return f == MeasureFunction.AVG || f == MeasureFunction.FIRST || f == MeasureFunction.LAST;
  }

  private static boolean numeric(DataType t) {
    return t == PrimitiveType.INTEGER
        || t == PrimitiveType.LONG
        || t == PrimitiveType.DOUBLE
        || t instanceof DecimalType;
  }

  List<StructField> outputFields() {
    return outputFields;
  }

  int size() {
    return functions.size();
  }

  int slotCount() {
    return slotCount;
  }

  MeasureFunction function(int measure) {
    return functions.get(measure);
  }

  /** The input column of a measure, or -1 for count(). */
  int input(int measure) {
    return inputs.get(measure);
  }

  boolean isDistinct(int measure) {
    return functions.get(measure) == MeasureFunction.COUNT_DISTINCT;
  }

  /** The input value of a count_distinct measure, or null. */
  Object distinctInput(int measure, Object[] row) {
    return row[inputs.get(measure)];
  }

  /** An empty buffer. */
  Object[] newBuffer() {
    Object[] b = new Object[slotCount];
    for (int i = 0; i < functions.size(); i++) {
      MeasureFunction f = functions.get(i);
      int s = slots.get(i);
      if (f == MeasureFunction.COUNT || f == MeasureFunction.COUNT_DISTINCT) {
        b[s] = 0L;
      } else if (f == MeasureFunction.AVG) {
        b[s] = 0.0;
        b[s + 1] = 0L;
      } else if (f == MeasureFunction.FIRST || f == MeasureFunction.LAST) {
        b[s + 1] = Boolean.FALSE;
      }
    }
    return b;
  }

  /**
   * Adds one row to the buffer. count_distinct is not handled here: the caller adds 1 via {@link
   * #countDistinct} when the value is new.
   */
  void add(Object[] buffer, Object[] row) {
    for (int i = 0; i < functions.size(); i++) {
      int s = slots.get(i);
      int in = inputs.get(i);
      Object v = in < 0 ? null : row[in];
      switch (functions.get(i)) {
        case COUNT -> {
          if (in < 0 || v != null) {
            buffer[s] = (Long) buffer[s] + 1;
          }
        }
        case SUM -> {
          if (v != null) {
            buffer[s] = buffer[s] == null ? widen(v) : plus(buffer[s], widen(v));
          }
        }
        case MIN -> {
          if (v != null && (buffer[s] == null || compare(v, buffer[s]) < 0)) {
            buffer[s] = v;
          }
        }
        case MAX -> {
          if (v != null && (buffer[s] == null || compare(v, buffer[s]) > 0)) {
            buffer[s] = v;
          }
        }
        case AVG -> {
          if (v != null) {
            buffer[s] = (Double) buffer[s] + ((Number) v).doubleValue();
            buffer[s + 1] = (Long) buffer[s + 1] + 1;
          }
        }
        case FIRST -> {
          if (!(Boolean) buffer[s + 1]) {
            buffer[s] = v;
            buffer[s + 1] = Boolean.TRUE;
          }
        }
        case LAST -> {
          buffer[s] = v;
          buffer[s + 1] = Boolean.TRUE;
        }
        case APPROX_COUNT_DISTINCT -> {
          if (v != null) {
            if (buffer[s] == null) {
              buffer[s] = new HllSketch(SKETCH_LG_K, SKETCH_TYPE);
            }
            // The value's state encoding (type tag + body) is what is hashed: equal values, equal
            // bytes.
            ((HllSketch) buffer[s]).update(new Codec.Writer().value(v).toBytes());
          }
        }
        case COUNT_DISTINCT -> {}
        default -> throw new IllegalStateException("unknown measure function " + functions.get(i));
      }
    }
  }

  void countDistinct(Object[] buffer, int measure) {
    int s = slots.get(measure);
    buffer[s] = (Long) buffer[s] + 1;
  }

  /**
   * Combines {@code other} into {@code into} (session windows that merge). Distinct counts are
   * recounted by the caller.
   */
  void merge(Object[] into, Object[] other) {
    for (int i = 0; i < functions.size(); i++) {
      int s = slots.get(i);
      switch (functions.get(i)) {
        case COUNT -> into[s] = (Long) into[s] + (Long) other[s];
        case SUM ->
            into[s] =
                into[s] == null ? other[s] : other[s] == null ? into[s] : plus(into[s], other[s]);
        case MIN ->
            into[s] =
                other[s] != null && (into[s] == null || compare(other[s], into[s]) < 0)
                    ? other[s]
                    : into[s];
        case MAX ->
            into[s] =
                other[s] != null && (into[s] == null || compare(other[s], into[s]) > 0)
                    ? other[s]
                    : into[s];
        case AVG -> {
          into[s] = (Double) into[s] + (Double) other[s];
          into[s + 1] = (Long) into[s + 1] + (Long) other[s + 1];
        }
        case FIRST -> {
          if (!(Boolean) into[s + 1] && (Boolean) other[s + 1]) {
            into[s] = other[s];
            into[s + 1] = Boolean.TRUE;
          }
        }
        case LAST -> {
          if ((Boolean) other[s + 1]) {
            into[s] = other[s];
            into[s + 1] = Boolean.TRUE;
          }
        }
        case APPROX_COUNT_DISTINCT -> into[s] = union((HllSketch) into[s], (HllSketch) other[s]);
        case COUNT_DISTINCT -> into[s] = 0L;
        default -> throw new IllegalStateException("unknown measure function " + functions.get(i));
      }
    }
  }

  /** The output values of the measures, in declaration order. */
  Object[] results(Object[] buffer) {
    Object[] out = new Object[functions.size()];
    for (int i = 0; i < functions.size(); i++) {
      int s = slots.get(i);
      if (functions.get(i) == MeasureFunction.AVG) {
        long n = (Long) buffer[s + 1];
        out[i] = n == 0 ? null : (Double) buffer[s] / n;
      } else if (functions.get(i) == MeasureFunction.APPROX_COUNT_DISTINCT) {
        out[i] = buffer[s] == null ? 0L : Math.round(((HllSketch) buffer[s]).getEstimate());
      } else if (buffer[s] instanceof BigDecimal d
          && outputFields.get(i).type() instanceof DecimalType t
          && !fits(d, t)) {
        // A decimal sum beyond its result precision is null, as in Spark (non-ANSI): a value the
        // table cannot hold would otherwise fail every later batch.
        out[i] = null;
      } else if (buffer[s] instanceof BigDecimal d
          && outputFields.get(i).type() == PrimitiveType.LONG) {
        // a long sum beyond the long range is null (Spark would wrap it around silently)
        out[i] = d.scale() == 0 && d.unscaledValue().bitLength() < 64 ? d.longValueExact() : null;
      } else {
        out[i] = buffer[s];
      }
    }
    return out;
  }

  private static boolean fits(BigDecimal d, DecimalType t) {
    return d.scale() == t.scale() && d.precision() <= t.precision();
  }

  byte[] encode(Object[] buffer) {
    Codec.Writer w = new Codec.Writer();
    for (Object o : buffer) {
      w.value(o instanceof HllSketch sketch ? sketch.toCompactByteArray() : o);
    }
    return w.toBytes();
  }

  Object[] decode(byte[] bytes, int offset) {
    Object[] buffer = Codec.values(bytes, offset, slotCount);
    for (int i = 0; i < functions.size(); i++) {
      int s = slots.get(i);
      if (functions.get(i) == MeasureFunction.APPROX_COUNT_DISTINCT && buffer[s] != null) {
        buffer[s] = HllSketch.heapify((byte[]) buffer[s]);
      }
    }
    return buffer;
  }

  private static HllSketch union(HllSketch a, HllSketch b) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    Union union = new Union(SKETCH_LG_K);
    union.update(a);
    union.update(b);
    return union.getResult(SKETCH_TYPE);
  }

  private static Object widen(Object v) {
    if (v instanceof Integer i) {
      return i.longValue();
    }
    return v;
  }

  /**
   * Long sums that leave the long range continue exactly as a BigDecimal (never wrapping around);
   * {@link #results} gives null if the final sum does not fit the result type.
   */
  private static Object plus(Object a, Object b) {
    if (a instanceof Long x && b instanceof Long y) {
      long sum = x + y;
      if (((x ^ sum) & (y ^ sum)) >= 0) {
        return sum;
      }
      return BigDecimal.valueOf(x).add(BigDecimal.valueOf(y));
    }
    if (a instanceof Double x) {
      return x + (Double) b;
    }
    BigDecimal sum = big(a).add(big(b));
    // A long sum back in range is a Long again, so its state stays as compact as before.
    if ((a instanceof Long || b instanceof Long)
        && sum.scale() == 0
        && sum.unscaledValue().bitLength() < 64) {
      return sum.longValueExact();
    }
    return sum;
  }

  private static BigDecimal big(Object v) {
    return v instanceof Long l ? BigDecimal.valueOf(l) : (BigDecimal) v;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof byte[] x) {
      return Arrays.compareUnsigned(x, (byte[]) b);
    }
    return ((Comparable) a).compareTo(b);
  }
}
