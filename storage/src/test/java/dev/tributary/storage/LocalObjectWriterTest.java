package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A full disk under a streamed object: Linux's {@code /dev/full} answers every write with ENOSPC,
 * as a file system without space does. The error must name the object and its store (the JDK's
 * message is only "No space left on device"), and nothing may be published.
 */
@EnabledOnOs(OS.LINUX)
class LocalObjectWriterTest {
  private static final String EXPECTED =
      "Local write of 'part-0.parquet' in /data/table failed: java.io.IOException: No space left"
          + " on device";

  private final List<String> done = new ArrayList<>();

  @Test
  void aFullDiskAtCloseNamesTheObjectAndPublishesNothing() throws IOException {
    try (LocalObjectWriter writer = writerOnAFullDisk()) {
      writer.write(new byte[100]); // buffered: the disk is met at close

      assertThatThrownBy(writer::close).isInstanceOf(IOException.class).hasMessage(EXPECTED);
    }
    assertThat(done).containsExactly("discarded");
  }

  @Test
  void aFullDiskDuringALargeWriteNamesTheObjectThenAndAtClose() throws IOException {
    LocalObjectWriter writer = writerOnAFullDisk();

    assertThatThrownBy(() -> writer.write(new byte[128 * 1024])).hasMessage(EXPECTED);
    assertThatThrownBy(() -> writer.write(1))
        .hasMessage("Cannot write: an earlier write failed")
        .hasRootCauseMessage("No space left on device");
    assertThatThrownBy(writer::close)
        .hasMessage("Object was not written: an earlier write failed (" + EXPECTED + ")");
    assertThat(done).containsExactly("discarded");
  }

  private LocalObjectWriter writerOnAFullDisk() throws IOException {
    return new LocalObjectWriter(
        "part-0.parquet",
        "/data/table",
        FileChannel.open(Path.of("/dev/full"), StandardOpenOption.WRITE),
        () -> done.add("published"),
        () -> done.add("discarded"));
  }
}
