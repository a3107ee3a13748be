package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.stateful.StreamJoinDefinition.Side;
import dev.tributary.service.stateful.StreamJoinDefinition.StreamJoinType;
import dev.tributary.service.stateful.StreamJoinDefinition.TimeMatch;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One test per rule of docs/STREAM_JOINS_SPARK_RULES.md the operator implements, on small inputs
 * checked by hand, and Spark's own example (S10) with its numbers. Left rows are {@code (user,
 * click time, name)}, right rows {@code (user, purchase time, item)}; unless a test says otherwise
 * the condition is the seed's {@code p.ts BETWEEN c.ts AND c.ts + 30 minutes} with its state
 * watermarks (S3r): left {@code W - 30 min - 1 ms}, right {@code W - 1 ms}.
 */
class StreamJoinOperatorTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private static final long MINUTE = 60_000_000L;
  private static final long T_MICROS = Times.micros(T);
  private static final TimeMatch SEED =
      (click, purchase) -> purchase >= click && purchase <= click + 30 * MINUTE;

  @TempDir Path dir;

  private static StreamJoinDefinition seed(StreamJoinType type) {
    return new StreamJoinDefinition(
        type,
        side(JoinRunner.stateWatermark(-30 * MINUTE, false)),
        side(JoinRunner.stateWatermark(0, false)),
        SEED);
  }

  private static Side side(LongFunction<OptionalLong> stateWatermark) {
    return new Side(3, new int[] {0}, 1, true, stateWatermark);
  }

  private static Object[] click(String user, int minute, String name) {
    return new Object[] {user, at(minute), name};
  }

  private static Object[] purchase(String user, int minute, String item) {
    return new Object[] {user, at(minute), item};
  }

  private static Instant at(int minute) {
    return T.plusSeconds(60L * minute);
  }

  /** A watermark {@code minute} minutes after T, in micros. */
  private static long w(int minute) {
    return T_MICROS + minute * MINUTE;
  }

  private static List<Object[]> rows(Object[]... rows) {
    return Arrays.asList(rows);
  }

  private static List<Object[]> none() {
    return List.of();
  }

  /** The names/items of output rows ("-" for a null side), e.g. "c1+p1", "c2+-", "-+p3". */
  private static List<String> pairs(JoinRunner.Batch b) {
    List<String> out = new ArrayList<>();
    for (List<Object> row : b.output()) {
      if (row.size() == 3) {
        out.add(String.valueOf(row.get(2))); // left semi: the left row alone
      } else {
        out.add(
            (row.get(2) == null ? "-" : row.get(2))
                + "+"
                + (row.get(5) == null ? "-" : row.get(5)));
      }
    }
    return out;
  }

  // P1, P2: a batch's right rows see its left rows, never the reverse; each pair once

  @Test
  void rightRowsSeeTheBatchsLeftRowsAndEachPairIsJoinedOnce() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.INNER), dir)) {
      JoinRunner.Batch b =
          r.batch(
              0,
              0,
              rows(click("u", 0, "c1"), click("u", 10, "c2"), click("v", 0, "c3")),
              rows(purchase("u", 15, "p1"), purchase("v", 40, "p2")));
      assertThat(pairs(b)).containsExactlyInAnyOrder("c1+p1", "c2+p1");
      // next batch: a new click sees the kept purchase, a new purchase the kept clicks
      b = r.batch(0, 0, rows(click("u", 5, "c4")), rows(purchase("u", 20, "p3")));
      assertThat(pairs(b)).containsExactlyInAnyOrder("c4+p1", "c1+p3", "c2+p3", "c4+p3");
    }
  }

  @Test
  void theOutputDoesNotDependOnTheOrderWithinAnInput() throws Exception {
    List<Object[]> left =
        rows(click("u", 0, "c1"), click("u", 10, "c2"), click("u", 20, "c3"), click("x", 1, "c4"));
    List<Object[]> right =
        rows(purchase("u", 25, "p1"), purchase("u", 12, "p2"), purchase("x", 2, "p3"));
    List<String> expected = null;
    for (int i = 0; i < 4; i++) {
      List<Object[]> l = new ArrayList<>(left);
      List<Object[]> rr = new ArrayList<>(right);
      Collections.rotate(l, i);
      Collections.reverse(rr);
      Collections.rotate(rr, i);
      try (JoinRunner r = new JoinRunner(seed(StreamJoinType.FULL_OUTER), dir.resolve("o" + i))) {
        List<String> got = new ArrayList<>(pairs(r.batch(0, 0, l, rr)));
        got.addAll(pairs(r.batch(w(120), 0, none(), none()))); // evicts all: the outer rows
        Collections.sort(got);
        if (expected == null) {
          expected = got;
          assertThat(got).contains("c1+p1", "c1+p2", "c2+p1", "c2+p2", "c3+p1", "c4+p3");
        }
        assertThat(got).as("rotation %d", i).isEqualTo(expected);
      }
    }
  }

  @Test
  void aLeftRowAfterTheRightRowsIsRefused() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.INNER), dir)) {
      StreamJoinOperator op = r.operator();
      op.begin(r.store(), 0, 0, 0);
      op.right(purchase("u", 1, "p1"), new NoEmitter());
      assertThatThrownBy(() -> op.left(click("u", 0, "c1"), new NoEmitter()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("batch 0: a left row after the right rows");
    }
  }

  // P1 + O2: a left row is kept even when due, so the batch's right rows see it

  @Test
  void aDueLeftRowStillMeetsTheBatchsRightRowsThenIsEvictedOrNullExtended() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.LEFT_OUTER), dir)) {
      // W_evict 60: the left state watermark is minute 30 - 1 ms; clicks at 0 and 20 are due
      JoinRunner.Batch b =
          r.batch(
              w(60),
              0,
              rows(click("u", 0, "c1"), click("u", 20, "c2"), click("u", 45, "c3")),
              rows(purchase("u", 35, "p1")));
      // c1 cannot match p1 (5 minutes after c1's bound) and comes out with nulls (O2); c2 matched
      assertThat(pairs(b)).containsExactlyInAnyOrder("c2+p1", "c1+-");
      assertThat(b.metrics()).containsEntry("join.left.evicted", 2L);
      assertThat(b.metrics()).containsEntry("join.outerRows", 1L);
      assertThat(b.metrics()).containsEntry("join.left.rows", 1L);
    }
  }

  // P3: a right row due in its own batch is not kept, unless an outer right row matched nothing

  @Test
  void aDueRightRowIsNotKeptInAnInnerJoin() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.INNER), dir)) {
      // W_evict 60: the right state watermark is 60 - 1 ms; p1 at 50 is due, p2 at 70 is not
      JoinRunner.Batch b =
          r.batch(w(60), 0, none(), rows(purchase("u", 50, "p1"), purchase("u", 70, "p2")));
      assertThat(b.metrics()).containsEntry("join.right.rows", 1L);
      assertThat(b.metrics()).containsEntry("join.right.evicted", 0L); // never stored
      // a click that would match both (not late: W_late is 0) only finds the kept one
      b = r.batch(w(60), 0, rows(click("u", 45, "c1")), none());
      assertThat(pairs(b)).containsExactly("c1+p2");
    }
  }

  @Test
  void aDueRightRowIsKeptForItsNullRowInARightOuterJoinUnlessItMatched() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.RIGHT_OUTER), dir)) {
      JoinRunner.Batch b =
          r.batch(
              w(60),
              0,
              rows(click("u", 40, "c1")),
              rows(purchase("u", 50, "p1"), purchase("v", 50, "p2")));
      // p1 matched c1 (not kept, no null row); p2 matched nothing: kept, evicted, null-extended
      assertThat(pairs(b)).containsExactlyInAnyOrder("c1+p1", "-+p2");
      assertThat(b.metrics()).containsEntry("join.right.evicted", 1L);
      assertThat(b.metrics()).containsEntry("join.right.rows", 0L);
    }
  }

  // P4: left semi outputs a left row once, whether it matches on arrival or later

  @Test
  void leftSemiOutputsEachLeftRowOnce() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.LEFT_SEMI), dir)) {
      JoinRunner.Batch b =
          r.batch(
              0,
              0,
              rows(click("u", 0, "c1")),
              rows(purchase("u", 5, "p1"), purchase("u", 6, "p2"), purchase("u", 50, "p3")));
      assertThat(pairs(b)).containsExactly("c1"); // two matches, one row
      // c2 matches the kept p1 on arrival: output and not kept; c3 waits
      b = r.batch(0, 0, rows(click("u", 1, "c2"), click("u", 60, "c3")), none());
      assertThat(pairs(b)).containsExactly("c2");
      assertThat(b.metrics()).containsEntry("join.left.rows", 2L); // c1 (matched) and c3
      b = r.batch(0, 0, none(), rows(purchase("u", 65, "p4"), purchase("u", 66, "p5")));
      assertThat(pairs(b)).containsExactly("c3"); // c1 is matched already: skipped
      b = r.batch(0, 0, none(), rows(purchase("u", 20, "p6")));
      assertThat(pairs(b)).isEmpty();
    }
  }

  // P5: a pair of equal keys outside the time condition is no match

  @Test
  void aKeyMatchFailingTheTimeConditionLeavesTheRowUnmatched() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.FULL_OUTER), dir)) {
      JoinRunner.Batch b = r.batch(0, 0, rows(click("u", 0, "c1")), rows(purchase("u", 31, "p1")));
      assertThat(pairs(b)).isEmpty();
      b = r.batch(w(120), 0, none(), none());
      assertThat(pairs(b)).containsExactly("c1+-", "-+p1"); // O1: left ones first
    }
  }

  // O1: outer rows only at eviction; a row matched once is never null-extended

  @Test
  void outerRowsComeWhenTheStateWatermarkPassesAndOnlyForRowsThatNeverMatched() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.LEFT_OUTER), dir)) {
      assertThat(pairs(r.batch(0, 0, rows(click("u", 0, "c1"), click("v", 0, "c2")), none())))
          .isEmpty();
      // c1 matches in a later batch
      assertThat(pairs(r.batch(w(10), 0, none(), rows(purchase("u", 29, "p1")))))
          .containsExactly("c1+p1");
      // W 30: left state watermark 0 - 1 ms: no click is due yet (they are at minute 0)
      JoinRunner.Batch b = r.batch(w(30), w(10), none(), none());
      assertThat(pairs(b)).isEmpty();
      assertThat(b.metrics()).containsEntry("join.left.evicted", 0L);
      // E4: left outer cleans the right side too (p1 at 29 is due), without null rows
      assertThat(b.metrics()).containsEntry("join.right.evicted", 1L);
      // W 30 min + 1 ms: state watermark exactly minute 0: both are evicted, only c2 null-extended
      b = r.batch(w(30) + 1000, w(30), none(), none());
      assertThat(pairs(b)).containsExactly("c2+-");
      assertThat(b.metrics()).containsEntry("join.left.evicted", 2L);
    }
  }

  // L1: rows at or behind the late watermark are dropped; left ones go to the late-events table

  @Test
  void rowsAtOrBehindTheLateWatermarkAreDropped() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.INNER), dir)) {
      JoinRunner.Batch b =
          r.batch(
              w(10),
              w(10),
              rows(click("u", 10, "c-late"), click("u", 11, "c1")),
              rows(purchase("u", 10, "p-late"), purchase("u", 12, "p1")));
      assertThat(pairs(b)).containsExactly("c1+p1");
      assertThat(b.late()).hasSize(1);
      assertThat(b.late().get(0)).containsExactly("u", at(10), "c-late", Emitter.Late.JOIN, w(10));
      assertThat(b.metrics())
          .containsEntry("join.left.lateRows", 1L)
          .containsEntry("join.right.lateRows", 1L);
    }
  }

  @Test
  void aSideWithoutAWatermarkDropsNothing() throws Exception {
    StreamJoinDefinition join =
        new StreamJoinDefinition(
            StreamJoinType.INNER,
            side(JoinRunner.stateWatermark(-30 * MINUTE, false)),
            new Side(3, new int[] {0}, 1, false, Side.NEVER),
            SEED);
    try (JoinRunner r = new JoinRunner(join, dir)) {
      JoinRunner.Batch b =
          r.batch(w(10), w(10), rows(click("u", 0, "c1")), rows(purchase("u", 5, "p1")));
      assertThat(pairs(b)).isEmpty(); // c1 is late
      assertThat(b.metrics()).containsEntry("join.right.lateRows", 0L);
      assertThat(b.metrics()).containsEntry("join.right.rows", 1L); // p1 is kept, never evicted
      b = r.batch(w(500), w(500), none(), none());
      assertThat(b.metrics()).containsEntry("join.right.rows", 1L);
    }
  }

  // J5 as Spark 4 does it (the differential test seed-full-outer): a null key is dropped on a side
  // where Spark infers key IS NOT NULL; on an outer join's preserved side it is an ordinary key, so
  // a full outer join pairs a null key with a null key

  @Test
  void nullKeysAreDroppedOrOrdinaryKeysOnAPreservedSideAsSparkDoes() throws Exception {
    for (StreamJoinType type : StreamJoinType.values()) {
      try (JoinRunner r = new JoinRunner(seed(type), dir.resolve(type.name()))) {
        List<String> got =
            new ArrayList<>(
                pairs(
                    r.batch(
                        0,
                        0,
                        rows(click(null, 0, "c-null"), click("u", 0, "c1")),
                        rows(purchase(null, 1, "p-null"), purchase("u", 1, "p1")))));
        got.addAll(pairs(r.batch(w(120), 0, none(), none())));
        List<String> expected =
            switch (type) {
              case INNER -> List.of("c1+p1");
              case LEFT_OUTER -> List.of("c1+p1", "c-null+-");
              case RIGHT_OUTER -> List.of("c1+p1", "-+p-null");
              case FULL_OUTER -> List.of("c1+p1", "c-null+p-null");
              case LEFT_SEMI -> List.of("c1");
            };
        assertThat(got).as(type.name()).containsExactlyInAnyOrderElementsOf(expected);
      }
    }
  }

  @Test
  void aNullEventTimeIsFiltered() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.FULL_OUTER), dir)) {
      JoinRunner.Batch b =
          r.batch(
              0,
              0,
              rows(new Object[] {"u", null, "c1"}),
              rows(new Object[] {"u", null, "p1"}, purchase("u", 1, "p2")));
      assertThat(b.filtered()).isEqualTo(2);
      assertThat(b.metrics()).containsEntry("join.left.rows", 0L);
      assertThat(b.metrics()).containsEntry("join.right.rows", 1L);
    }
  }

  // E3: no state watermark, no eviction

  @Test
  void withoutAStateWatermarkNothingIsEvicted() throws Exception {
    StreamJoinDefinition join =
        new StreamJoinDefinition(
            StreamJoinType.INNER,
            new Side(3, new int[] {0}, Side.NO_TIME, false, Side.NEVER),
            new Side(3, new int[] {0}, Side.NO_TIME, false, Side.NEVER),
            TimeMatch.ANY);
    try (JoinRunner r = new JoinRunner(join, dir)) {
      r.batch(0, 0, rows(click("u", 0, "c1")), rows(purchase("u", 900, "p1")));
      JoinRunner.Batch b = r.batch(w(10_000), w(10_000), rows(click("u", -900, "c2")), none());
      assertThat(pairs(b)).containsExactly("c2+p1");
      assertThat(b.metrics())
          .containsEntry("join.left.rows", 2L)
          .containsEntry("join.right.rows", 1L)
          .containsEntry("join.left.lateRows", 0L);
    }
  }

  // E4: inner and left semi clean both sides

  @Test
  void anInnerJoinEvictsBothSidesWithoutNullRows() throws Exception {
    try (JoinRunner r = new JoinRunner(seed(StreamJoinType.INNER), dir)) {
      r.batch(0, 0, rows(click("u", 0, "c1")), rows(purchase("v", 5, "p1")));
      JoinRunner.Batch b = r.batch(w(60), 0, none(), none());
      assertThat(pairs(b)).isEmpty();
      assertThat(b.metrics())
          .containsEntry("join.left.evicted", 1L)
          .containsEntry("join.right.evicted", 1L)
          .containsEntry("join.left.rows", 0L)
          .containsEntry("join.right.rows", 0L)
          .containsEntry("join.left.bytes", 0L);
    }
  }

  // Replays and restarts: the state after a batch is what the checkpoint restores

  @Test
  void aRestartAndAReplayGiveTheSameResultAsAnUninterruptedRun() throws Exception {
    List<String> uninterrupted = new ArrayList<>();
    List<String> interrupted = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      List<String> out = run == 0 ? uninterrupted : interrupted;
      try (JoinRunner r = new JoinRunner(seed(StreamJoinType.FULL_OUTER), dir.resolve("r" + run))) {
        out.addAll(pairs(r.batch(0, 0, rows(click("u", 0, "c1")), rows(purchase("u", 40, "p0")))));
        if (run == 1) {
          r.restart();
        }
        List<Object[]> left = rows(click("u", 20, "c2"));
        List<Object[]> right = rows(purchase("u", 25, "p1"));
        out.addAll(
            pairs(run == 1 ? r.replayed(w(5), 0, left, right) : r.batch(w(5), 0, left, right)));
        out.addAll(pairs(r.batch(w(100), w(5), none(), none())));
      }
    }
    assertThat(interrupted).isEqualTo(uninterrupted);
    assertThat(uninterrupted)
        .containsExactlyInAnyOrder("c2+p0", "c1+p1", "c2+p1"); // all matched: no null rows
  }

  /**
   * Spark's example S10 ("stream-stream time interval left outer join -> aggregation, append mode",
   * MultiStatefulOperatorsSuite), the join's part: delays 0, {@code s1.timestamp1 BETWEEN
   * s2.timestamp2 - INTERVAL 1 hour AND s2.timestamp2 + INTERVAL 1 hour}, left outer, the data and
   * no-data batches with the watermarks the test asserts; and its right-outer mirror.
   */
  @Test
  void sparksExampleS10() throws Exception {
    for (StreamJoinType type : List.of(StreamJoinType.LEFT_OUTER, StreamJoinType.RIGHT_OUTER)) {
      boolean mirrored = type == StreamJoinType.RIGHT_OUTER; // s1's rows go to the right input
      long hour = 60 * MINUTE;
      TimeMatch within =
          (l, rr) -> mirrored ? rr >= l - hour && rr <= l + hour : l >= rr - hour && l <= rr + hour;
      LongFunction<OptionalLong> stateWm = JoinRunner.stateWatermark(-hour, false);
      StreamJoinDefinition join =
          new StreamJoinDefinition(
              type,
              new Side(2, new int[] {0}, 1, true, stateWm),
              new Side(2, new int[] {0}, 1, true, stateWm),
              within);
      // the join's state watermarks in the second batch: 01:00:20 - 1 h - 1 ms, on both sides
      assertThat(stateWm.apply(micros("01:00:20"))).hasValue(micros("00:00:19.999"));
      try (JoinRunner r = new JoinRunner(join, dir.resolve(type.name()))) {
        List<Object[]> s1 = rows(s10("1", "01:00:10"), s10("2", "01:00:30"));
        List<Object[]> s2 = rows(s10("1", "01:00:20"));
        JoinRunner.Batch b = mirrored ? r.batch(0, 0, s2, s1) : r.batch(0, 0, s1, s2); // data batch
        assertThat(s10Rows(b, mirrored)).containsExactly("1@01:00:10+1@01:00:20");
        b = r.batch(micros("01:00:20"), 0, none(), none()); // no-data batch
        assertThat(b.output()).isEmpty();
        assertThat(r.operator().leftStateWatermark()).hasValue(micros("00:00:19.999"));
        List<Object[]> s1b = rows(s10("5", "01:15:00"));
        List<Object[]> s2b = rows(s10("6", "01:15:00"));
        b =
            r.batch(
                micros("01:00:20"), micros("01:00:20"), mirrored ? s2b : s1b, mirrored ? s1b : s2b);
        assertThat(b.output()).isEmpty();
        b = r.batch(micros("01:15:00"), micros("01:00:20"), none(), none());
        assertThat(b.output()).isEmpty();
        List<Object[]> s1c = rows(s10("5", "02:16:00"));
        List<Object[]> s2c = rows(s10("6", "02:16:00"));
        b =
            r.batch(
                micros("01:15:00"), micros("01:15:00"), mirrored ? s2c : s1c, mirrored ? s1c : s2c);
        assertThat(b.output()).isEmpty();
        // the last no-data batch: state watermark 01:15:59.999 on both sides
        b = r.batch(micros("02:16:00"), micros("01:15:00"), none(), none());
        assertThat(s10Rows(b, mirrored))
            .containsExactlyInAnyOrder("2@01:00:30+null", "5@01:15:00+null");
        // left and right state keep the 02:16 rows only
        assertThat(b.metrics())
            .containsEntry("join.left.rows", 1L)
            .containsEntry("join.right.rows", 1L);
      }
    }
  }

  private static Object[] s10(String id, String time) {
    return new Object[] {id, Times.instant(micros(time))};
  }

  private static long micros(String timeOfDay) {
    return Times.micros(Instant.parse("2023-01-01T" + timeOfDay + "Z"));
  }

  /** S10's rows as s1's id@time + s2's (whatever input each went to). */
  private static List<String> s10Rows(JoinRunner.Batch b, boolean mirrored) {
    List<String> out = new ArrayList<>();
    for (List<Object> row : b.output()) {
      String left = row.get(0) == null ? "null" : row.get(0) + "@" + clock(row.get(1));
      String right = row.get(2) == null ? "null" : row.get(2) + "@" + clock(row.get(3));
      out.add(mirrored ? right + "+" + left : left + "+" + right);
    }
    return out;
  }

  private static String clock(Object t) {
    String s = t.toString(); // 2023-01-01T01:00:10Z
    return s.substring(11, s.length() - 1);
  }

  private static final class NoEmitter implements Emitter {
    @Override
    public void output(Object[] row) {}

    @Override
    public void late(Object[] row, Late why) {}

    @Override
    public void filtered() {}
  }
}
