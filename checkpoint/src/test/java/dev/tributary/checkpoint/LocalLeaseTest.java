package dev.tributary.checkpoint;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease contract on local disk: time passes for the store by moving the files' modification
 * times back, which is what the expiry check reads.
 */
class LocalLeaseTest extends LeaseContract {
  @TempDir Path dir;

  @Override
  protected ObjectStore newStore() throws Exception {
    return ObjectStores.open(dir.resolve("checkpoint").toString(), null);
  }

  @Override
  protected void letTimePass(Duration time) throws Exception {
    List<Path> files;
    try (Stream<Path> all = Files.walk(dir)) {
      files = all.filter(Files::isRegularFile).toList();
    }
    for (Path file : files) {
      FileTime modified = Files.getLastModifiedTime(file);
      Files.setLastModifiedTime(file, FileTime.from(modified.toInstant().minus(time)));
    }
  }
}
