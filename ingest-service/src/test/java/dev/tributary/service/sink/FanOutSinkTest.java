package dev.tributary.service.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.testing.CrashAt;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One batch to several sinks: who gets the rows, the commit order, the point between commits. */
class FanOutSinkTest {
  static final TableTxns TXNS = new TableTxns("p", Optional.of("c"));

  /** A sink in memory that remembers the last batch it committed, like every real sink. */
  static final class MemorySink implements TableSink, AutoCloseable {
    final String name;
    final List<String> log;
    final List<Object[]> rows = new ArrayList<>();
    long held = -1;
    boolean closed;

    MemorySink(String name, List<String> log) {
      this.name = name;
      this.log = log;
    }

    @Override
    public String location() {
      return name;
    }

    @Override
    public BatchWriter begin(BatchTag tag) {
      if (held >= tag.batchId()) {
        return new AlreadyHeld();
      }
      List<Object[]> pending = new ArrayList<>();
      return new BatchWriter() {
        @Override
        public boolean alreadyCommitted() {
          return false;
        }

        @Override
        public void write(Object[] row) {
          pending.add(row);
        }

        @Override
        public long rows() {
          return pending.size();
        }

        @Override
        public long commit(Map<String, String> commitInfo) {
          rows.addAll(pending);
          held = tag.batchId();
          log.add(name + " committed " + tag.batchId());
          return 10 + tag.batchId();
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  static BatchTag tag(long batch) {
    return TXNS.tag(batch, Map.of());
  }

  @Test
  void commitsEverySinkInOrderAndSkipsTheOnesHoldingTheBatch() throws Exception {
    List<String> log = new ArrayList<>();
    MemorySink a = new MemorySink("a", log);
    MemorySink b = new MemorySink("b", log);
    FanOutSink fan = new FanOutSink(List.of(a, b));
    assertThat(fan.parts()).containsExactly(a, b);
    assertThat(fan.location()).isEqualTo("[a, b]");
    // batch 0 reached a only before a crash
    a.held = 0;
    try (TableSink.BatchWriter w = fan.begin(tag(0))) {
      assertThat(w.alreadyCommitted()).isFalse();
      w.write(new Object[] {1});
      assertThat(w.commit(Map.of())).as("the first part's result: it held the batch").isEqualTo(-1);
    }
    try (TableSink.BatchWriter w = fan.begin(tag(1))) {
      w.write(new Object[] {2});
      assertThat(w.rows()).isEqualTo(1);
      assertThat(w.commit(Map.of())).isEqualTo(11);
    }
    try (TableSink.BatchWriter w = fan.begin(tag(1))) {
      assertThat(w.alreadyCommitted()).isTrue();
    }
    assertThat(log).containsExactly("b committed 0", "a committed 1", "b committed 1");
    assertThat(a.rows).extracting(r -> r[0]).containsExactly(2);
    assertThat(b.rows).extracting(r -> r[0]).containsExactly(1, 2);
    fan.close();
    assertThat(a.closed && b.closed).isTrue();
  }

  @Test
  void aCrashBetweenTwoCommitsLeavesTheLaterSinksToTheReplay() throws Exception {
    List<String> log = new ArrayList<>();
    MemorySink a = new MemorySink("a", log);
    MemorySink b = new MemorySink("b", log);
    MemorySink c = new MemorySink("c", log);
    FanOutSink fan = new FanOutSink(List.of(a, b, c));
    CrashAt crash = new CrashAt(CrashPoints.AFTER_SINK_PART_COMMIT, 2);
    assertThat(
            crash.runCrashing(
                () -> {
                  try (TableSink.BatchWriter w = fan.begin(tag(0))) {
                    w.write(new Object[] {1});
                    return w.commit(Map.of());
                  }
                }))
        .isTrue();
    assertThat(log).containsExactly("a committed 0", "b committed 0");
    try (TableSink.BatchWriter replay = fan.begin(tag(0))) {
      replay.write(new Object[] {1});
      replay.commit(Map.of());
    }
    assertThat(log).containsExactly("a committed 0", "b committed 0", "c committed 0");
    assertThat(List.of(a, b, c)).allSatisfy(s -> assertThat(s.rows).hasSize(1));
  }

  @Test
  void needsTwoSinks() {
    assertThatThrownBy(() -> new FanOutSink(List.of(new MemorySink("a", new ArrayList<>()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a fan-out needs at least two sinks");
  }
}
