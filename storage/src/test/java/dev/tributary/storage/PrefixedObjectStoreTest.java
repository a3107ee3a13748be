package dev.tributary.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.ObjectStoreContractTest;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract through {@link ObjectStores#under} a local store, and what the view adds. */
class PrefixedObjectStoreTest extends ObjectStoreContractTest {
  @TempDir Path dir;
  private ObjectStore parent;

  @Override
  protected ObjectStore newStore() throws IOException {
    parent = new LocalObjectStore(dir.resolve("checkpoint"));
    return ObjectStores.under(parent, "partitions/3/");
  }

  @AfterEach
  void closeParent() throws IOException {
    parent.close();
  }

  @Test
  void keysLiveUnderThePrefixOfTheParent() throws IOException {
    store.put("offsets/0", "a".getBytes(UTF_8));

    assertThat(store.location()).isEqualTo(dir.resolve("checkpoint") + "/partitions/3");
    assertThat(keys(parent.list(""))).containsExactly("partitions/3/offsets/0");
    assertThat(parent.read("partitions/3/offsets/0")).isEqualTo("a".getBytes(UTF_8));
    assertThat(store.stat("offsets/0")).get().extracting(ObjectInfo::key).isEqualTo("offsets/0");
  }

  @Test
  void aSiblingPrefixThatSharesTheDigitsIsNotListed() throws IOException {
    parent.put("partitions/30/offsets/0", new byte[1]);
    parent.put("partitions/3x", new byte[1]);
    parent.put("metadata/0", new byte[1]);
    store.put("offsets/1", new byte[1]);

    assertThat(keys(store.list(""))).containsExactly("offsets/1");
    assertThat(keys(store.sample("", 10))).containsExactly("offsets/1");
    assertThat(keys(store.list("offsets/", "offsets/0"))).containsExactly("offsets/1");
  }

  @Test
  void closingTheViewLeavesTheParentOpen() throws IOException {
    store.close();

    parent.put("still/open", new byte[] {7});
    assertThat(parent.read("still/open")).containsExactly(7);
  }

  @Test
  void keysAndListingPrefixesCannotEscapeThePrefix() {
    assertThatThrownBy(() -> store.put("../4/offsets/0", new byte[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("../4/offsets/0");
    assertThatThrownBy(() -> store.list("../"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("../");
    assertThatThrownBy(() -> ObjectStores.under(parent, "a//b"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
