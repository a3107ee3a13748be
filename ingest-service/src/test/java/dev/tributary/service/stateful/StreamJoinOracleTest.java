package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.stateful.JoinOracle.Event;
import dev.tributary.service.stateful.StreamJoinDefinition.Side;
import dev.tributary.service.stateful.StreamJoinDefinition.StreamJoinType;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator against {@link JoinOracle} over seeded random streams: every join type × time
 * conditions (the seed's one-sided bound, a two-sided one, its strict form, a watermark in the
 * keys, a right input without a watermark) × several streams, each cut into batches in two ways
 * (with no-data batches between), and in each run either a restart from the committed state or a
 * replay of a batch (its first attempt thrown away before the state commit) in the middle. The
 * streams have late and out-of-order rows, rows on the bounds to the microsecond, duplicates, null
 * keys and null times. Every batch's output and late rows must equal the oracle's, as multisets.
 */
class StreamJoinOracleTest {
  private static final long MINUTE = 60_000_000L;
  private static final long T0 = Times.micros(Instant.parse("2026-01-01T00:00:00Z"));
  private static final long DELAY = 10 * MINUTE;
  private static final int STREAMS = 3;
  private static final String[] USERS = {"a", "b", "c", "d"};

  @TempDir Path dir;

  /** A time condition with the state watermarks Spark derives from it (S2r). */
  private record Condition(
      String name,
      JoinOracle.Condition holds,
      LongFunction<OptionalLong> left,
      LongFunction<OptionalLong> right,
      boolean rightDropsLate,
      boolean keyHasTime) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final List<Condition> CONDITIONS =
      List.of(
          // p.ts BETWEEN c.ts AND c.ts + 30 minutes (S3r)
          new Condition(
              "seed",
              (l, r) -> r >= l && r <= l + 30 * MINUTE,
              JoinRunner.stateWatermark(-30 * MINUTE, false),
              JoinRunner.stateWatermark(0, false),
              true,
              false),
          // l.ts BETWEEN r.ts - 10 minutes AND r.ts + 5 minutes: both sides bound
          new Condition(
              "between",
              (l, r) -> l >= r - 10 * MINUTE && l <= r + 5 * MINUTE,
              JoinRunner.stateWatermark(-10 * MINUTE, false),
              JoinRunner.stateWatermark(-5 * MINUTE, false),
              true,
              false),
          // l.ts > r.ts - 10 minutes AND l.ts < r.ts + 5 minutes: strict, no 1 ms margin
          new Condition(
              "strict",
              (l, r) -> l > r - 10 * MINUTE && l < r + 5 * MINUTE,
              JoinRunner.stateWatermark(-10 * MINUTE, true),
              JoinRunner.stateWatermark(-5 * MINUTE, true),
              true,
              false),
          // on: [user, ts]: both sides evicted with W_evict itself (S1r.1)
          new Condition("key-time", (l, r) -> true, OptionalLong::of, OptionalLong::of, true, true),
          // the seed's condition, the right input without a watermark: no side is evicted (S1r.2),
          // and right rows are never late
          new Condition(
              "right-without-watermark",
              (l, r) -> r >= l && r <= l + 30 * MINUTE,
              Side.NEVER,
              Side.NEVER,
              false,
              false));

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Condition c : CONDITIONS) {
      for (StreamJoinType type : StreamJoinType.values()) {
        cases.add(Arguments.of(c, type));
      }
    }
    return cases.stream();
  }

  /** Totals over a test's runs, so that a run that exercises nothing cannot pass unnoticed. */
  private static final class Seen {
    long output;
    long nullRows;
    long late;
    long evicted;
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void operatorEqualsTheOracle(Condition condition, StreamJoinType type) throws Exception {
    Seen seen = new Seen();
    for (int stream = 0; stream < STREAMS; stream++) {
      Random random = new Random(31L * stream + condition.name().hashCode() + type.ordinal());
      List<Event> left = new ArrayList<>();
      List<Event> right = new ArrayList<>();
      generate(random, left, right);
      for (int cut = 0; cut < 2; cut++) {
        List<JoinOracle.Batch> batches = cut(random, left, right);
        int interrupted = batches.size() / 2;
        boolean replay = (stream + cut) % 2 == 0;
        String run =
            "stream %d cut %d (%d batches, %s at batch %d)"
                .formatted(stream, cut, batches.size(), replay ? "replay" : "restart", interrupted);
        compare(
            condition,
            type,
            batches,
            interrupted,
            replay,
            dir.resolve(stream + "-" + cut),
            run,
            seen);
      }
    }
    assertThat(seen.output).as("output rows").isGreaterThan(10);
    assertThat(seen.late).as("late rows").isPositive();
    if (condition.left() != Side.NEVER) {
      assertThat(seen.evicted).as("evicted rows").isPositive();
      if (type != StreamJoinType.INNER && type != StreamJoinType.LEFT_SEMI) {
        assertThat(seen.nullRows).as("outer rows").isPositive();
      }
    }
  }

  private static void compare(
      Condition condition,
      StreamJoinType type,
      List<JoinOracle.Batch> batches,
      int interrupted,
      boolean replay,
      Path dir,
      String run,
      Seen seen)
      throws Exception {
    int[] keys = condition.keyHasTime() ? new int[] {0, 1} : new int[] {0};
    StreamJoinDefinition join =
        new StreamJoinDefinition(
            type,
            new Side(3, keys, 1, true, condition.left()),
            new Side(3, keys, 1, condition.rightDropsLate(), condition.right()),
            condition.holds()::holds);
    JoinOracle.Expected expected =
        JoinOracle.compute(
            kind(type),
            new JoinOracle.SideRules(true, condition.left()),
            new JoinOracle.SideRules(condition.rightDropsLate(), condition.right()),
            condition.holds(),
            condition.keyHasTime(),
            batches);
    try (JoinRunner runner = new JoinRunner(join, dir)) {
      for (int b = 0; b < batches.size(); b++) {
        JoinOracle.Batch batch = batches.get(b);
        List<Object[]> left = rows(batch.left());
        List<Object[]> right = rows(batch.right());
        JoinRunner.Batch got;
        if (b == interrupted && replay) {
          got = runner.replayed(batch.evict(), batch.late(), left, right);
        } else {
          if (b == interrupted) {
            runner.restart();
          }
          got = runner.batch(batch.evict(), batch.late(), left, right);
        }
        String where = "%s %s, %s, batch %d".formatted(condition, type, run, b);
        assertThat(sorted(got.output()))
            .as(where + " output")
            .isEqualTo(sorted(expected.output().get(b)));
        assertThat(got.late())
            .extracting(l -> (String) l.get(2))
            .as(where + " late rows")
            .containsExactlyInAnyOrderElementsOf(
                expected.late().get(b).stream().map(Event::id).toList());
        seen.output += got.output().size();
        seen.nullRows += got.metrics().get("join.outerRows");
        seen.late += got.late().size() + got.metrics().get("join.right.lateRows");
        seen.evicted +=
            got.metrics().get("join.left.evicted") + got.metrics().get("join.right.evicted");
      }
    }
  }

  private static JoinOracle.Kind kind(StreamJoinType type) {
    return switch (type) {
      case INNER -> JoinOracle.Kind.INNER;
      case LEFT_OUTER -> JoinOracle.Kind.LEFT;
      case RIGHT_OUTER -> JoinOracle.Kind.RIGHT;
      case FULL_OUTER -> JoinOracle.Kind.FULL;
      case LEFT_SEMI -> JoinOracle.Kind.LEFT_SEMI;
    };
  }

  private static List<Object[]> rows(List<Event> events) {
    List<Object[]> rows = new ArrayList<>();
    for (Event e : events) {
      rows.add(
          new Object[] {e.user(), e.micros() == null ? null : Times.instant(e.micros()), e.id()});
    }
    return rows;
  }

  private static List<String> sorted(List<List<Object>> rows) {
    List<String> out = new ArrayList<>();
    for (List<Object> row : rows) {
      out.add(row.toString());
    }
    Collections.sort(out);
    return out;
  }

  /**
   * Clicks roughly 1.5 minutes apart in arrival order, their times jittered around that progress,
   * some late (40-90 minutes behind), and purchases of which most follow a recent click of the same
   * user by -5..+40 minutes (a quarter of those at the click's time exactly, so that a key holding
   * the time matches too). Times fall on whole minutes, a millisecond either side, or anywhere.
   */
  private static void generate(Random random, List<Event> left, List<Event> right) {
    for (int i = 0; i < 60; i++) {
      long progress = T0 + i * 90_000_000L;
      long time =
          random.nextInt(10) == 0
              ? progress - (40 + random.nextInt(50)) * MINUTE
              : progress + (random.nextInt(60) - 20) * MINUTE;
      left.add(event(random, "c" + i, user(random), time, left));
      if (random.nextInt(3) > 0) {
        Event click = left.get(Math.max(0, left.size() - 1 - random.nextInt(5)));
        long at =
            click.micros() == null ? progress : click.micros() + (random.nextInt(46) - 5) * MINUTE;
        String user = random.nextInt(5) == 0 ? user(random) : click.user();
        if (click.micros() != null && random.nextInt(4) == 0) {
          right.add(new Event(user, click.micros(), "p" + i)); // the click's time exactly
        } else {
          right.add(event(random, "p" + i, user, at, right));
        }
      }
    }
  }

  private static Event event(
      Random random, String id, String user, long minuteTime, List<Event> before) {
    if (!before.isEmpty() && random.nextInt(20) == 0) {
      Event copy = before.get(random.nextInt(before.size())); // a duplicate, under a new id
      return new Event(copy.user(), copy.micros(), id);
    }
    if (random.nextInt(30) == 0) {
      return new Event(user, null, id);
    }
    long minute = minuteTime - Math.floorMod(minuteTime, MINUTE);
    long time =
        switch (random.nextInt(4)) {
          case 0 -> minute;
          case 1 -> minute - 1000;
          case 2 -> minute + 1000;
          default -> minute + random.nextInt(60_000_000);
        };
    return new Event(user, time, id);
  }

  private static String user(Random random) {
    return random.nextInt(20) == 0 ? null : USERS[random.nextInt(USERS.length)];
  }

  /**
   * Cuts both streams into batches at random points of their arrival order (a click and the
   * purchases generated with it arrive together), with a no-data batch now and then, and gives each
   * batch its watermarks: W_evict the watermark after the previous batch (max event time per input
   * minus the delay, the minimum of the two, never going back, 0 until both inputs had rows),
   * W_late the previous batch's W_evict.
   */
  private static List<JoinOracle.Batch> cut(Random random, List<Event> left, List<Event> right) {
    List<JoinOracle.Batch> batches = new ArrayList<>();
    int l = 0;
    int r = 0;
    long watermark = 0;
    long previous = 0;
    long maxLeft = Long.MIN_VALUE;
    long maxRight = Long.MIN_VALUE;
    while (l < left.size() || r < right.size()) {
      List<Event> ls = new ArrayList<>();
      List<Event> rs = new ArrayList<>();
      if (random.nextInt(5) > 0) {
        int size = 1 + random.nextInt(12);
        for (int i = 0; i < size && l < left.size(); i++) {
          ls.add(left.get(l++));
        }
        // the purchases whose number is below the last click's arrive in the same batch
        int lastClick = l;
        while (r < right.size() && Integer.parseInt(right.get(r).id().substring(1)) < lastClick) {
          rs.add(right.get(r++));
        }
      }
      batches.add(new JoinOracle.Batch(ls, rs, watermark, previous));
      previous = watermark;
      for (Event e : ls) {
        maxLeft = e.micros() == null ? maxLeft : Math.max(maxLeft, e.micros());
      }
      for (Event e : rs) {
        maxRight = e.micros() == null ? maxRight : Math.max(maxRight, e.micros());
      }
      if (maxLeft != Long.MIN_VALUE && maxRight != Long.MIN_VALUE) {
        long next = Math.min(maxLeft, maxRight) - DELAY;
        watermark = Math.max(watermark, next - Math.floorMod(next, 1000L));
      }
    }
    // no-data batches until the watermark stops moving evict what is due
    for (int i = 0; i < 2; i++) {
      batches.add(new JoinOracle.Batch(List.of(), List.of(), watermark, previous));
      previous = watermark;
    }
    return batches;
  }
}
