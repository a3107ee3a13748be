package dev.tributary.checkpoint.internal;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reading and creating the numbered files of one checkpoint. Creation is put-if-absent with
 * idempotent retry: an existing file with equal content is our own earlier attempt, an existing
 * file with different content is another writer.
 */
public final class LogFiles {
  private static final Logger LOG = LoggerFactory.getLogger(LogFiles.class);

  /** Decodes a file's bytes; corrupt content is a checked exception naming the file. */
  @FunctionalInterface
  public interface Decoder<T> {
    T decode(String location, String key, byte[] data) throws IOException;
  }

  private final ObjectStore store;
  private final String pipelineId;
  // Each stray file is reported once per checkpoint instance, not at every listing.
  private final Set<String> warnedStrayKeys = ConcurrentHashMap.newKeySet();

  public LogFiles(ObjectStore store, String pipelineId) {
    this.store = Objects.requireNonNull(store, "store");
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
  }

  public String location() {
    return store.location();
  }

  /** The numbers of every well-named file under {@code dir}, ascending. Stray names are skipped. */
  public List<Long> numbers(String dir) throws IOException {
    List<Long> out = new ArrayList<>();
    for (ObjectInfo info : store.list(dir)) {
      OptionalLong n = LogKeys.parse(dir, info.key());
      if (n.isPresent()) {
        out.add(n.getAsLong());
      } else if (warnedStrayKeys.add(info.key())) {
        LOG.warn("Ignoring unexpected file '{}' in checkpoint {}", info.key(), store.location());
      }
    }
    // Sorted by the store already; sorting again costs nothing and does not trust every backend.
    out.sort(null);
    return out;
  }

  /** The highest number under {@code dir}, or empty if there is none. */
  public OptionalLong latest(String dir) throws IOException {
    List<Long> all = numbers(dir);
    return all.isEmpty() ? OptionalLong.empty() : OptionalLong.of(all.get(all.size() - 1));
  }

  public boolean exists(String key) throws IOException {
    return store.stat(key).isPresent();
  }

  /** The decoded file, or empty if it does not exist. */
  public <T> Optional<T> read(String key, Decoder<T> decoder) throws IOException {
    byte[] data;
    try {
      data = store.read(key);
    } catch (ObjectNotFoundException missing) {
      return Optional.empty();
    }
    return Optional.of(decoder.decode(store.location(), key, data));
  }

  /**
   * Creates {@code key} with {@code data} unless it exists. Returns normally if this call created
   * it or if it already holds an equal entry (a retry of our own write); throws {@link
   * dev.tributary.checkpoint.ConcurrentPipelineException} if it holds a different one. When the
   * store reports an error (outcome unknown), the outcome is resolved by reading, never by
   * deleting: if the file is absent the original error is rethrown and the call may be retried.
   */
  public <T> void create(String key, byte[] data, T entry, Decoder<T> decoder) throws IOException {
    boolean created;
    try {
      created = store.putIfAbsent(key, data);
    } catch (IOException unknown) {
      Optional<T> existing;
      try {
        existing = read(key, decoder);
      } catch (IOException readFailed) {
        unknown.addSuppressed(readFailed);
        throw unknown;
      }
      if (existing.isEmpty()) {
        throw unknown;
      }
      LOG.info(
          "Write of '{}' in {} reported {}; the file exists, checking its content",
          key,
          store.location(),
          unknown.toString());
      verifySame(key, existing.get(), entry);
      return;
    }
    if (!created) {
      T existing =
          read(key, decoder)
              .orElseThrow(
                  () ->
                      CheckpointErrors.inconsistent(
                          store.location(),
                          "'" + key + "' was reported to exist but cannot be found"));
      verifySame(key, existing, entry);
      LOG.debug("'{}' in {} already held this entry: idempotent retry", key, store.location());
    }
  }

  public void delete(String key) throws IOException {
    store.delete(key);
  }

  private <T> void verifySame(String key, T existing, T ours) throws IOException {
    if (!existing.equals(ours)) {
      throw CheckpointErrors.concurrentWriter(
          pipelineId,
          store.location(),
          key,
          EntryDescriptions.describe(existing),
          EntryDescriptions.describe(ours));
    }
  }
}
