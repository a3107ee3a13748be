package dev.tributary.service.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The CDC demo's generator keeps a truth consistent with the events it writes. */
class ChangeEventsTest {
  private static final Instant START = Instant.parse("2026-11-01T08:00:00Z");

  @Test
  void theDatabaseIsTheOpenVersionOfEveryKey() {
    ChangeEvents.Stream stream = ChangeEvents.generate(2_000, START, 3);
    for (Map.Entry<Long, List<ChangeEvents.Version>> e : stream.history().entrySet()) {
      List<ChangeEvents.Version> versions = e.getValue();
      for (int i = 0; i + 1 < versions.size(); i++) {
        assertThat(versions.get(i).toMs()).as("key %d closed", e.getKey()).isNotNull();
        assertThat(versions.get(i).toMs()).isLessThanOrEqualTo(versions.get(i + 1).fromMs());
      }
      ChangeEvents.Version last = versions.get(versions.size() - 1);
      assertThat(last.toMs() == null ? last.row() : null)
          .isEqualTo(stream.database().get(e.getKey()));
    }
  }

  @Test
  void everyKindIsThereAndAddsUpToTheRecords() {
    ChangeEvents.Stream stream = ChangeEvents.generate(2_000, START, 3);
    assertThat(
            List.of(stream.snapshotReads(), stream.inserts(), stream.updates(), stream.deletes()))
        .allMatch(n -> n > 0);
    assertThat(stream.replayed()).isPositive();
    // every delete is followed by its tombstone
    assertThat(
            stream.snapshotReads()
                + stream.inserts()
                + stream.updates()
                + 2 * stream.deletes()
                + stream.replayed())
        .isEqualTo(stream.changes().size());
    assertThat(stream.changes().stream().filter(c -> c.value() == null).count())
        .isEqualTo(stream.deletes());
  }

  @Test
  void aKeysEventsStayInItsPartitionAndTheSameSeedGivesTheSameStream() {
    ChangeEvents.Stream a = ChangeEvents.generate(500, START, 9);
    ChangeEvents.Stream b = ChangeEvents.generate(500, START, 9);
    assertThat(a.changes()).hasSameSizeAs(b.changes());
    for (int i = 0; i < a.changes().size(); i++) {
      ChangeEvents.Change c = a.changes().get(i);
      String key = new String(c.key(), StandardCharsets.UTF_8);
      long id = Long.parseLong(key.replaceAll("\\D", ""));
      assertThat(c.partition()).isEqualTo((int) (id % ChangeEvents.PARTITIONS));
      assertThat(b.changes().get(i).value()).isEqualTo(c.value());
    }
  }
}
