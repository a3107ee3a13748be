package dev.tributary.checkpoint.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.testing.FaultInjectingObjectStore;
import dev.tributary.storage.testing.FaultInjectingObjectStore.Operation;
import dev.tributary.storage.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Store failures during state commits and snapshots. */
class StateFaultInjectionTest {
  private final FaultInjectingObjectStore store =
      new FaultInjectingObjectStore(new InMemoryObjectStore());
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void changelogUploadWithUnknownOutcomeIsResolvedByReading() throws Exception {
    try (StateStore state = StateStore.open(store, "agg", -1, dir)) {
      state.put(b("k"), b("v"));
      store.succeedThenThrow(Operation.PUT_IF_ABSENT, 1);

      state.commit(0);

      assertThat(state.version()).isZero();
    }
    try (StateStore state = StateStore.open(store, "agg", 0, dir)) {
      assertThat(state.get(b("k"))).isEqualTo(b("v"));
    }
  }

  @Test
  void failedChangelogUploadKeepsTheChangesPendingForARetry() throws Exception {
    try (StateStore state = StateStore.open(store, "agg", -1, dir)) {
      state.put(b("k"), b("v"));
      store.failNext(Operation.PUT_IF_ABSENT, 1);

      assertThatThrownBy(() -> state.commit(0))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith(FaultInjectingObjectStore.MESSAGE_PREFIX + "PUT_IF_ABSENT");
      assertThat(state.version()).isEqualTo(StateStore.INITIAL_VERSION);
      assertThat(state.metrics().keysWritten()).isEqualTo(1);

      state.commit(0);
      assertThat(state.version()).isZero();
    }
    try (StateStore state = StateStore.open(store, "agg", 0, dir)) {
      assertThat(state.get(b("k"))).isEqualTo(b("v"));
    }
  }

  @Test
  void failedSnapshotDoesNotFailTheCommitAndIsRetriedAtTheNextOne() throws Exception {
    try (StateStore state = StateStore.open(store, "agg", -1, dir, 2)) {
      state.put(b("a"), b("1"));
      state.commit(0);
      state.put(b("b"), b("2"));
      store.failNext(Operation.CREATE, 1);

      state.commit(1); // snapshot of version 1 fails

      state.put(b("c"), b("3"));
      state.commit(2); // snapshot of version 2 instead
    }
    assertThat(store.delegate().list("state/agg/"))
        .extracting(ObjectInfo::key)
        .filteredOn(k -> k.endsWith(".snapshot"))
        .containsExactly("state/agg/00000000000000000002.snapshot");
    store.delegate().delete("state/agg/00000000000000000000.delta");
    try (StateStore state = StateStore.open(store, "agg", 2, dir)) {
      assertThat(state.metrics().keys()).isEqualTo(3);
    }
  }
}
