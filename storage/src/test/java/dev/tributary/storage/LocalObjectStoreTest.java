package dev.tributary.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.ObjectStoreContractTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreTest extends ObjectStoreContractTest {
  @TempDir Path dir;

  @Override
  protected ObjectStore newStore() throws IOException {
    return new LocalObjectStore(dir.resolve("root"));
  }

  @Test
  void theRootDirectoryIsCreatedOnOpen() {
    assertThat(dir.resolve("root")).isDirectory();
    assertThat(store.location()).isEqualTo(dir.resolve("root").toString());
  }

  @Test
  void objectsAreFilesUnderTheRoot() throws IOException {
    store.put("a/b.json", "{}".getBytes(UTF_8));

    assertThat(dir.resolve("root/a/b.json")).hasContent("{}");
  }

  @Test
  void keysThatWouldEscapeTheRootAreRejected() {
    assertThatThrownBy(() -> store.put("../outside", new byte[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid object key '../outside'")
        .hasMessageContaining("could escape the store's root");
    assertThatThrownBy(() -> store.read("/etc/passwd"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid object key '/etc/passwd'")
        .hasMessageContaining("starts with '/'");
    assertThat(dir.resolve("outside")).doesNotExist();
  }

  @Test
  void keysUsingTheTemporaryFileNameAreRejected() {
    assertThatThrownBy(() -> store.put("a/.tributary-tmp-x.tmp", new byte[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a/.tributary-tmp-x.tmp")
        .hasMessageContaining("reserved for in-progress writes");
  }

  @Test
  void noTemporaryFilesAreLeftBehind() throws IOException {
    store.put("t/a", new byte[] {1});
    store.putIfAbsent("t/a", new byte[] {2});
    store.putIfAbsent("t/b", new byte[] {3});
    store.create("t/c").abort();
    try (var writer = store.create("t/d")) {
      writer.write(4);
    }

    try (Stream<Path> files = Files.list(dir.resolve("root/t"))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("a", "b", "d");
    }
  }

  @Test
  void anInProgressWriteIsAHiddenTemporaryFileThatListIgnores() throws IOException {
    try (var writer = store.create("t/x")) {
      writer.write(new byte[100_000]);

      try (Stream<Path> files = Files.list(dir.resolve("root/t"))) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .singleElement()
            .asString()
            .startsWith(".tributary-tmp-")
            .endsWith(".tmp");
      }
      assertThat(store.list("")).isEmpty();
    }
    assertThat(keys(store.list(""))).containsExactly("t/x");
  }

  @Test
  void aTemporaryFileLeftByACrashIsIgnored() throws IOException {
    // What a kill -9 between writing and publishing leaves behind.
    Files.createDirectories(dir.resolve("root/_delta_log"));
    Files.write(dir.resolve("root/_delta_log/.tributary-tmp-0000.tmp"), new byte[] {9});

    assertThat(store.list("")).isEmpty();
    assertThat(store.putIfAbsent("_delta_log/00000000000000000000.json", new byte[] {1})).isTrue();
    assertThat(keys(store.list("_delta_log/")))
        .containsExactly("_delta_log/00000000000000000000.json");
  }

  @Test
  void aKeyCannotBeBothAnObjectAndADirectory() throws IOException {
    store.put("a", new byte[1]);
    store.put("b/c", new byte[1]);

    assertThatThrownBy(() -> store.put("a/x", new byte[1]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Cannot write 'a/x'")
        .hasMessageContaining("'a' is an object");
    assertThatThrownBy(() -> store.put("b", new byte[1]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Cannot write 'b'")
        .hasMessageContaining("objects exist under 'b/'");
    assertThatThrownBy(() -> store.putIfAbsent("b", new byte[1]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("objects exist under 'b/'");
    assertThat(store.stat("a/x")).isEmpty();
  }

  @Test
  void aRelativePathAndAFileUriOpenTheSameKindOfStore() throws IOException {
    try (ObjectStore viaUri = ObjectStores.open(dir.resolve("root").toUri().toString(), null)) {
      store.put("shared", "yes".getBytes(UTF_8));
      assertThat(new String(viaUri.read("shared"), UTF_8)).isEqualTo("yes");
    }
  }
}
