package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Counters of several tables add up field by field. */
class CommitCountersTest {
  @Test
  void plusAddsEveryCounter() {
    CommitCounters a = new CommitCounters(1, 2, 3, 4, 5, 6, 7, 8, 9);
    CommitCounters b = new CommitCounters(10, 20, 30, 40, 50, 60, 70, 80, 90);
    assertThat(a.plus(b)).isEqualTo(new CommitCounters(11, 22, 33, 44, 55, 66, 77, 88, 99));
    assertThat(CommitCounters.ZERO.plus(a)).isEqualTo(a);
  }
}
