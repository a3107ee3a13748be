package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.MergeTransaction.Kind;
import dev.tributary.table.VersionHistory.Event;
import dev.tributary.table.VersionHistory.Plan;
import dev.tributary.table.VersionHistory.Version;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The history of one key: rows are {key, value, _valid_from, _valid_to, _is_current}; instants are
 * small numbers of seconds, written as microseconds.
 */
class VersionHistoryTest {
  final VersionHistory history = new VersionHistory(2, 3, 4);

  static long s(long seconds) {
    return seconds * 1_000_000L;
  }

  static Object[] stored(String value, long from, Long to) {
    return new Object[] {
      1L,
      value,
      Instant.ofEpochSecond(from),
      to == null ? null : Instant.ofEpochSecond(to),
      to == null
    };
  }

  static Event upsert(String value, long at) {
    return new Event(Kind.UPSERT, new Object[] {1L, value, null, null, null}, s(at));
  }

  static Event delete(long at) {
    return new Event(Kind.DELETE, new Object[] {1L, null, null, null, null}, s(at));
  }

  List<Version> versions(Object[]... rows) {
    List<Version> out = new ArrayList<>();
    for (Object[] r : rows) {
      out.add(history.version(r));
    }
    return out;
  }

  /** A row as "value [from, to) current?" with seconds. */
  static String show(Object[] r) {
    return r[1]
        + " ["
        + ((Instant) r[2]).getEpochSecond()
        + ", "
        + (r[3] == null ? "-" : ((Instant) r[3]).getEpochSecond())
        + ")"
        + (Boolean.TRUE.equals(r[4]) ? " current" : "");
  }

  static List<String> added(Plan plan) {
    return plan.added().stream().map(VersionHistoryTest::show).toList();
  }

  @Test
  void aNewKeyOpensItsFirstVersion() {
    Plan plan = history.plan(List.of(), List.of(upsert("a", 10)));
    assertThat(plan.removed()).isEmpty();
    assertThat(added(plan)).containsExactly("a [10, -) current");
    assertThat(plan.opened()).isEqualTo(1);
  }

  @Test
  void aChangeClosesTheCurrentVersionAndOpensItsOwn() {
    Plan plan =
        history.plan(
            versions(stored("a", 5, 10L), stored("b", 10, null)), List.of(upsert("c", 20)));
    assertThat(plan.removed()).containsExactly(1);
    assertThat(added(plan)).containsExactlyInAnyOrder("b [10, 20)", "c [20, -) current");
    assertThat(plan.opened()).isEqualTo(1);
  }

  @Test
  void severalChangesOfABatchBecomeAChainWhateverTheirOrderInTheStream() {
    Plan plan =
        history.plan(
            versions(stored("a", 5, null)),
            List.of(upsert("d", 40), upsert("b", 20), upsert("c", 30)));
    assertThat(plan.removed()).containsExactly(0);
    assertThat(added(plan))
        .containsExactlyInAnyOrder("a [5, 20)", "b [20, 30)", "c [30, 40)", "d [40, -) current");
  }

  @Test
  void aDeleteClosesTheCurrentVersionWithoutOpeningOne() {
    Plan plan = history.plan(versions(stored("a", 5, null)), List.of(delete(9)));
    assertThat(plan.removed()).containsExactly(0);
    assertThat(added(plan)).containsExactly("a [5, 9)");
    assertThat(plan.opened()).isZero();
  }

  @Test
  void aDeletedKeyComesBackWithANewCurrentVersionAndKeepsItsGap() {
    Plan plan = history.plan(versions(stored("a", 5, 9L)), List.of(upsert("b", 12)));
    assertThat(plan.removed()).as("the closed version stays as it is").isEmpty();
    assertThat(added(plan)).containsExactly("b [12, -) current");
  }

  @Test
  void aLateChangeSplitsTheVersionItFallsInto() {
    Plan plan =
        history.plan(
            versions(stored("a", 5, 10L), stored("b", 10, 20L), stored("c", 20, null)),
            List.of(upsert("late", 15)));
    assertThat(plan.removed()).containsExactly(1);
    assertThat(added(plan)).containsExactlyInAnyOrder("b [10, 15)", "late [15, 20)");
  }

  @Test
  void aLateChangeBeforeTheFirstVersionEndsWhereItStarts() {
    Plan plan = history.plan(versions(stored("a", 5, null)), List.of(upsert("early", 1)));
    assertThat(plan.removed()).isEmpty();
    assertThat(added(plan)).containsExactly("early [1, 5)");
  }

  @Test
  void aLateChangeInsideADeletedStretchKeepsTheDelete() {
    // a [5, 9) then deleted at 9; a late change at 7 ends at the delete, not "current"
    Plan plan = history.plan(versions(stored("a", 5, 9L)), List.of(upsert("late", 7)));
    assertThat(plan.removed()).containsExactly(0);
    assertThat(added(plan)).containsExactlyInAnyOrder("a [5, 7)", "late [7, 9)");
  }

  @Test
  void aLateChangeInTheGapAfterADeleteEndsAtTheNextVersion() {
    Plan plan =
        history.plan(
            versions(stored("a", 5, 9L), stored("b", 20, null)), List.of(upsert("late", 12)));
    assertThat(plan.removed()).isEmpty();
    assertThat(added(plan)).containsExactly("late [12, 20)");
  }

  @Test
  void aLateDeleteCutsTheVersionItFallsIntoAndLeavesAGap() {
    Plan plan =
        history.plan(versions(stored("a", 5, 10L), stored("b", 10, null)), List.of(delete(7)));
    assertThat(plan.removed()).containsExactly(0);
    assertThat(added(plan)).containsExactly("a [5, 7)");
  }

  @Test
  void aDeleteOfAKeyThatHoldsNothingThenChangesNothing() {
    assertThat(history.plan(versions(stored("a", 5, 9L)), List.of(delete(12))).added()).isEmpty();
    assertThat(history.plan(List.of(), List.of(delete(12))).added()).isEmpty();
    assertThat(history.plan(versions(stored("a", 5, null)), List.of(delete(2))).added()).isEmpty();
  }

  @Test
  void aChangeAtAnInstantTheHistoryHoldsIsADuplicateAndChangesNothing() {
    List<Version> stored = versions(stored("a", 5, 10L), stored("b", 10, null));
    Plan replay = history.plan(stored, List.of(upsert("a again", 5), upsert("b again", 10)));
    assertThat(replay.removed()).isEmpty();
    assertThat(replay.added()).isEmpty();
    assertThat(replay.duplicates()).isEqualTo(2);
    Plan deleteTwice =
        history.plan(versions(stored("a", 5, 9L)), List.of(delete(9), upsert("x", 9)));
    assertThat(deleteTwice.duplicates()).as("the delete at 9 is held").isEqualTo(1);
    assertThat(added(deleteTwice))
        .as("an upsert at the delete's instant came later: it opens there")
        .containsExactly("x [9, -) current");
  }

  @Test
  void ofTheBatchsChangesAtOneInstantTheFirstStandsAsItWouldAcrossBatches() {
    Plan plan = history.plan(List.of(), List.of(upsert("first", 5), upsert("second", 5)));
    assertThat(added(plan)).containsExactly("first [5, -) current");
    assertThat(plan.duplicates()).isEqualTo(1);
    Plan deleted = history.plan(List.of(), List.of(upsert("a", 5), delete(5)));
    assertThat(deleted.added()).isEmpty();
  }

  @Test
  void planningTheSameBatchTwiceOnItsOwnResultChangesNothing() {
    List<Event> batch = List.of(upsert("b", 20), delete(25), upsert("late", 8), upsert("c", 30));
    Plan first = history.plan(versions(stored("a", 5, 10L), stored("z", 10, null)), batch);
    List<Object[]> after = new ArrayList<>();
    List<Object[]> before = List.of(stored("a", 5, 10L), stored("z", 10, null));
    for (int i = 0; i < before.size(); i++) {
      if (!first.removed().contains(i)) {
        after.add(before.get(i));
      }
    }
    after.addAll(first.added());
    assertThat(after.stream().map(VersionHistoryTest::show))
        .containsExactlyInAnyOrder(
            "a [5, 8)", "late [8, 10)", "z [10, 20)", "b [20, 25)", "c [30, -) current");
    Plan again = history.plan(versions(after.toArray(Object[][]::new)), batch);
    assertThat(again.removed()).isEmpty();
    assertThat(again.added()).isEmpty();
    assertThat(again.duplicates()).as("the delete at 25 is a stored end").isEqualTo(4);
  }

  static Event tombstone(long at) {
    return new Event(
        Kind.DELETE,
        new Object[] {1L, null, null, null, null},
        s(at),
        HistoryMergeTransaction.Placement.NOT_BEFORE_LATEST);
  }

  @Test
  void aTombstoneStampedBeforeTheLatestVersionClosesItNotAnEarlierOne() {
    List<Version> stored = versions(stored("a", 5, 10L), stored("b", 10, null));
    Plan early = history.plan(stored, List.of(tombstone(7)));
    assertThat(early.removed()).as("a stays as it is").containsExactly(1);
    assertThat(early.added())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r[1]).isEqualTo("b");
              assertThat(r[3])
                  .as("closed a microsecond after it started: not erased")
                  .isEqualTo(Instant.ofEpochSecond(10, 1000));
            });
    Plan onTime = history.plan(stored, List.of(tombstone(15)));
    assertThat(added(onTime)).containsExactly("b [10, 15)");
    Plan afterDelete = history.plan(versions(stored("a", 5, 9L)), List.of(tombstone(3)));
    assertThat(afterDelete.added()).as("the key holds nothing: nothing to close").isEmpty();
  }
}
