package dev.tributary.storage.testing;

import static dev.tributary.storage.testing.FaultInjectingObjectStore.Operation.CREATE;
import static dev.tributary.storage.testing.FaultInjectingObjectStore.Operation.DELETE;
import static dev.tributary.storage.testing.FaultInjectingObjectStore.Operation.LIST;
import static dev.tributary.storage.testing.FaultInjectingObjectStore.Operation.PUT;
import static dev.tributary.storage.testing.FaultInjectingObjectStore.Operation.PUT_IF_ABSENT;
import static dev.tributary.storage.testing.FaultInjectingObjectStore.Operation.READ;
import static dev.tributary.storage.testing.FaultInjectingObjectStore.Operation.STAT;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FaultInjectingObjectStoreTest {
  private final InMemoryObjectStore memory = new InMemoryObjectStore();
  private final FaultInjectingObjectStore store = new FaultInjectingObjectStore(memory);

  @Test
  void failNextThrowsWithoutDoingAnythingThenPassesThrough() throws IOException {
    store.failNext(PUT_IF_ABSENT, 2);

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> store.putIfAbsent("log/1.json", new byte[] {1}))
          .isInstanceOf(IOException.class)
          .hasMessage(
              "Injected fault: PUT_IF_ABSENT of 'log/1.json' failed before doing" + " anything");
    }
    assertThat(memory.stat("log/1.json")).isEmpty();
    assertThat(store.putIfAbsent("log/1.json", new byte[] {1})).isTrue();
    assertThat(store.calls(PUT_IF_ABSENT)).isEqualTo(3);
    assertThat(store.pendingFaults(PUT_IF_ABSENT)).isZero();
  }

  @Test
  void succeedThenThrowDoesTheOperationThenThrows() throws IOException {
    store.succeedThenThrow(PUT_IF_ABSENT, 1).succeedThenThrow(PUT, 1).succeedThenThrow(DELETE, 1);

    assertThatThrownBy(() -> store.putIfAbsent("log/1.json", "mine".getBytes(UTF_8)))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "Injected fault: PUT_IF_ABSENT of 'log/1.json' was done, then failed (state"
                + " unknown to the caller)");
    assertThat(memory.read("log/1.json")).isEqualTo("mine".getBytes(UTF_8));
    assertThat(store.putIfAbsent("log/1.json", "again".getBytes(UTF_8))).isFalse();

    assertThatThrownBy(() -> store.put("p", new byte[] {7})).hasMessageContaining("PUT of 'p'");
    assertThat(memory.read("p")).containsExactly(7);
    assertThatThrownBy(() -> store.delete("p")).hasMessageContaining("DELETE of 'p'");
    assertThat(memory.stat("p")).isEmpty();
  }

  @Test
  void faultsAreKeptPerOperationAndInOrder() throws IOException {
    store.put("k", new byte[] {1});
    store.failNext(READ, 1).succeedThenThrow(READ, 1).failNext(LIST, 1);

    assertThat(store.stat("k")).as("STAT has no fault queued").isPresent();
    assertThatThrownBy(() -> store.read("k")).hasMessageContaining("READ of 'k' failed before");
    assertThatThrownBy(() -> store.open("k")).hasMessageContaining("READ of 'k' was done");
    assertThat(store.readRange("k", 0, 1)).containsExactly(1);
    assertThatThrownBy(() -> store.list("")).hasMessageContaining("LIST of '*' failed before");
    assertThat(store.list("")).hasSize(1);
    assertThat(store.calls(READ)).isEqualTo(3);
    assertThat(store.calls(STAT)).isEqualTo(1);
    assertThat(store.calls(LIST)).isEqualTo(2);
  }

  @Test
  void createFaultsFireOnCloseBeforeOrAfterPublishing() throws IOException {
    store.failNext(CREATE, 1).succeedThenThrow(CREATE, 1);

    ObjectWriter failing = store.create("a");
    failing.write(1);
    assertThatThrownBy(failing::close)
        .hasMessage("Injected fault: CREATE of 'a' failed before doing anything");
    failing.close(); // already closed: no second fault
    ObjectWriter publishing = store.create("b");
    publishing.write(2);
    assertThatThrownBy(publishing::close).hasMessageContaining("CREATE of 'b' was done");
    try (ObjectWriter clean = store.create("c")) {
      clean.write(3);
    }

    assertThat(memory.stat("a")).isEmpty();
    assertThat(memory.read("b")).containsExactly(2);
    assertThat(memory.read("c")).containsExactly(3);
    assertThat(store.calls(CREATE)).isEqualTo(3);
  }

  @Test
  void clearFaultsDropsQueuedFaults() throws IOException {
    store.failNext(PUT, 5);
    store.clearFaults();

    store.put("k", new byte[1]);
    assertThat(store.pendingFaults(PUT)).isZero();
    assertThatThrownBy(() -> store.failNext(PUT, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fault count must not be negative, got -1");
  }

  @Test
  void eachQueuedFaultIsTakenByExactlyOneOfManyConcurrentCalls() throws Exception {
    store.failNext(PUT, 50);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> calls = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String key = "k" + i;
        calls.add(
            pool.submit(
                () -> {
                  try {
                    store.put(key, new byte[1]);
                    return true;
                  } catch (IOException e) {
                    return false;
                  }
                }));
      }
      int failed = 0;
      for (Future<Boolean> call : calls) {
        failed += call.get(30, TimeUnit.SECONDS) ? 0 : 1;
      }

      assertThat(failed).isEqualTo(50);
      assertThat(memory.list("")).hasSize(150);
      assertThat(store.calls(PUT)).isEqualTo(200);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void delegateAndLocationAreTheWrappedStores() {
    assertThat(store.delegate()).isSameAs(memory);
    assertThat(store.location()).isEqualTo(memory.location());
  }
}
