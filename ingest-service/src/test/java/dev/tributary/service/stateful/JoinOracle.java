package dev.tributary.service.stateful;

import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.engine.SourceInput;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The expected output of a stream-stream join over a batched pair of streams, computed from Spark's
 * rules (docs/STREAM_JOINS_SPARK_RULES.md) by nested loops over all rows, without a state store and
 * without sharing code with {@link StreamJoinOperator}: a declarative reading of the rules rather
 * than a re-run of the procedure.
 *
 * <ul>
 *   <li>A row takes part when its time is not null and, on a side with a watermark, after the
 *       batch's late watermark (L1); late left rows are reported.
 *   <li>A row is <em>kept until</em> the first batch at whose end its side's state watermark is at
 *       or after its time (E1); before that it is visible to the other side's later rows. (A right
 *       row that P3 does not store is one kept until its own batch.)
 *   <li>A (left, right) pair with equal, non-null keys passing the time condition (P5) is output in
 *       the batch of the later of the two if the earlier one is still kept then; two rows of one
 *       batch always meet (the right row sees the left one, P1/P2).
 *   <li>Outer sides: a row without any output pair is output with nulls in the batch it stops being
 *       kept in (O1, O2), left ones before right ones; null-key rows of the preserved side likewise
 *       (J5). Left semi: a left row is output once, in the batch of its first pair (P4).
 * </ul>
 */
final class JoinOracle {
  /** The join types, spelled out here on purpose rather than taken from the operator. */
  enum Kind {
    INNER,
    LEFT,
    RIGHT,
    FULL,
    LEFT_SEMI
  }

  /** The time condition on (left time, right time), in micros. */
  interface Condition {
    boolean holds(long left, long right);
  }

  /** An input row: join key {@code user} (null: a null key), event time (null: none), an id. */
  record Event(String user, Long micros, String id) {
    /**
     * The Kafka value the seed pipelines read for {@code e}: JSON with {@code user_id}, {@code
     * event_ts} and {@code id}; for a null {@code e} a malformed record, of two kinds by its
     * position in its partition (not JSON, or JSON cut short), both to be quarantined.
     */
    static String value(Event e, int position) {
      if (e == null) {
        return position % 2 == 0 ? "not json " + position : "{\"user_id\": \"u1\", \"event_ts\": ";
      }
      return "{\"user_id\":"
          + (e.user() == null ? "null" : "\"" + e.user() + "\"")
          + ",\"event_ts\":\""
          + Times.instant(e.micros())
          + "\",\"id\":\""
          + e.id()
          + "\"}";
    }
  }

  /** A side: whether its input has a watermark, its state watermark as a function of W_evict. */
  record SideRules(boolean dropsLate, LongFunction<OptionalLong> stateWatermark) {}

  /**
   * One batch of the cut: the rows of each input in read order, and the batch's watermarks.
   *
   * @param evict W_evict
   * @param late W_late
   */
  record Batch(List<Event> left, List<Event> right, long evict, long late) {}

  /** The expected output and late (left) rows per batch. */
  record Expected(List<List<List<Object>>> output, List<List<Event>> late) {}

  private record Row(Event e, int batch, boolean left) {}

  private JoinOracle() {}

  /**
   * @param keyHasTime whether the join key is (user, time) rather than user alone (Spark's key
   *     watermark case, S1r.1)
   */
  static Expected compute(
      Kind kind,
      SideRules leftRules,
      SideRules rightRules,
      Condition condition,
      boolean keyHasTime,
      List<Batch> batches) {
    List<Row> lefts = new ArrayList<>();
    List<Row> rights = new ArrayList<>();
    List<List<Event>> late = new ArrayList<>();
    for (int b = 0; b < batches.size(); b++) {
      Batch batch = batches.get(b);
      List<Event> lateHere = new ArrayList<>();
      for (Event e : batch.left()) {
        if (e.micros() == null || e.user() == null && !(kind == Kind.LEFT || kind == Kind.FULL)) {
          continue; // J5: Spark's inferred key IS NOT NULL drops it before the late filter
        }
        if (leftRules.dropsLate() && e.micros() <= batch.late()) {
          lateHere.add(e);
          continue;
        }
        lefts.add(new Row(e, b, true));
      }
      for (Event e : batch.right()) {
        boolean keyKept = e.user() != null || kind == Kind.RIGHT || kind == Kind.FULL;
        if (e.micros() != null
            && keyKept
            && !(rightRules.dropsLate() && e.micros() <= batch.late())) {
          rights.add(new Row(e, b, false));
        }
      }
      late.add(lateHere);
    }

    List<List<List<Object>>> out = new ArrayList<>();
    for (int b = 0; b < batches.size(); b++) {
      out.add(new ArrayList<>());
    }
    boolean[] leftPaired = new boolean[lefts.size()];
    boolean[] rightPaired = new boolean[rights.size()];
    int[] leftFirstPair = new int[lefts.size()];
    Arrays.fill(leftFirstPair, Integer.MAX_VALUE);
    for (int i = 0; i < lefts.size(); i++) {
      Row l = lefts.get(i);
      for (int j = 0; j < rights.size(); j++) {
        Row r = rights.get(j);
        if (!sameKey(kind, l.e(), r.e(), keyHasTime)
            || !condition.holds(l.e().micros(), r.e().micros())) {
          continue;
        }
        int at;
        if (l.batch() == r.batch()) {
          at = l.batch();
        } else if (l.batch() < r.batch()) {
          if (keptUntil(l, leftRules, batches) < r.batch()) {
            continue;
          }
          at = r.batch();
        } else {
          if (keptUntil(r, rightRules, batches) < l.batch()) {
            continue;
          }
          at = l.batch();
        }
        leftPaired[i] = true;
        rightPaired[j] = true;
        leftFirstPair[i] = Math.min(leftFirstPair[i], at);
        if (kind != Kind.LEFT_SEMI) {
          out.get(at).add(joined(l.e(), r.e()));
        }
      }
    }
    if (kind == Kind.LEFT_SEMI) {
      for (int i = 0; i < lefts.size(); i++) {
        if (leftPaired[i]) {
          out.get(leftFirstPair[i]).add(values(lefts.get(i).e()));
        }
      }
    }
    if (kind == Kind.LEFT || kind == Kind.FULL) {
      for (int i = 0; i < lefts.size(); i++) {
        int until = keptUntil(lefts.get(i), leftRules, batches);
        if (!leftPaired[i] && until < batches.size()) {
          out.get(until).add(joined(lefts.get(i).e(), null));
        }
      }
    }
    if (kind == Kind.RIGHT || kind == Kind.FULL) {
      for (int j = 0; j < rights.size(); j++) {
        int until = keptUntil(rights.get(j), rightRules, batches);
        if (!rightPaired[j] && until < batches.size()) {
          out.get(until).add(joined(null, rights.get(j).e()));
        }
      }
    }
    return new Expected(out, late);
  }

  /** J5: a null key pairs only in a full outer join, where both sides keep it (Spark 4's rule). */
  private static boolean sameKey(Kind kind, Event l, Event r, boolean keyHasTime) {
    return (l.user() != null || kind == Kind.FULL)
        && Objects.equals(l.user(), r.user())
        && (!keyHasTime || Objects.equals(l.micros(), r.micros()));
  }

  /**
   * The batch at whose end the row stops being kept: the first from its own at which its side's
   * state watermark reaches its time; past the last batch if none does.
   */
  private static int keptUntil(Row row, SideRules rules, List<Batch> batches) {
    for (int b = row.batch(); b < batches.size(); b++) {
      OptionalLong wm = rules.stateWatermark().apply(batches.get(b).evict());
      if (wm.isPresent() && row.e().micros() <= wm.getAsLong()) {
        return b;
      }
    }
    return Integer.MAX_VALUE;
  }

  /** An output row: the left values then the right ones, nulls for a missing side. */
  private static List<Object> joined(Event l, Event r) {
    List<Object> row = new ArrayList<>(values(l));
    row.addAll(values(r));
    return row;
  }

  private static List<Object> values(Event e) {
    return e == null
        ? Arrays.asList(null, null, null)
        : Arrays.asList(e.user(), Times.instant(e.micros()), e.id());
  }

  /**
   * A joined sink table's rows in the columns {@link #compute} gives ({@code user_id, event_ts, id}
   * and the purchase's, prefixed {@code p_}): times as they are, other values as strings.
   */
  static List<List<Object>> sinkRows(ObjectStore store) throws IOException {
    StructType schema = DeltaTable.open(store, TableOptions.defaults()).snapshot().schema();
    int[] columns =
        Stream.of("user_id", "event_ts", "id", "p_user_id", "p_event_ts", "p_id")
            .mapToInt(schema::indexOf)
            .toArray();
    if (Arrays.stream(columns).anyMatch(c -> c < 0)) {
      throw new AssertionError("the sink lacks a joined column: " + schema.fieldNames());
    }
    List<List<Object>> got = new ArrayList<>();
    for (Object[] row : TableContents.rows(store)) {
      List<Object> values = new ArrayList<>();
      for (int c : columns) {
        values.add(row[c] instanceof Instant || row[c] == null ? row[c] : row[c].toString());
      }
      got.add(values);
    }
    return got;
  }

  /**
   * The seed's state watermark of a side whose rows are kept {@code bound} past the other side's
   * time: {@code W − bound − 1 ms}, in Spark's arithmetic (rule S3r: milliseconds, through a
   * double).
   */
  static OptionalLong seedState(long evict, long bound) {
    long ms = (long) ((evict / 1000 * 1000.0 - bound) / 1000.0) - 1;
    return OptionalLong.of(ms * 1000);
  }

  /**
   * The events of a table's recorded range ({@code user_id, event_ts, id} rows), read again by
   * {@code source} as a replay would: the oracle's side of a batch whose input is a Delta table.
   */
  static List<Event> tableEvents(DeltaTableSource source, BatchRange part) throws Exception {
    List<Event> events = new ArrayList<>();
    source.read(
        part,
        true /* inFixedOrder */,
        new SourceInput() {
          @Override
          public void record(ConsumerRecord<byte[], byte[]> record) {
            throw new AssertionError("a table delivers rows");
          }

          @Override
          public void row(SourceRow row) {
            Object[] v = row.values();
            events.add(new Event((String) v[0], Times.micros((Instant) v[1]), (String) v[2]));
          }
        });
    return events;
  }
}
