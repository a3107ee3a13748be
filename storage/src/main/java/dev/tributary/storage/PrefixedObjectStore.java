package dev.tributary.storage;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A view of the objects of another store under one key prefix, as a store of its own: key {@code k}
 * of this store is key {@code <prefix>/k} of the parent. Listings return keys with the prefix
 * stripped. The view shares the parent's clients (one S3 client for many views), so {@link
 * #close()} does not close the parent: its owner does.
 *
 * <p>Used for the checkpoints of a stateful group-mode pipeline's sub-pipelines, each rooted at
 * {@code partitions/<n>/} inside the pipeline's checkpoint (docs/DESIGN.md, "Stateful pipelines in
 * group mode"). Keys are checked before the prefix is added, so no key escapes the prefix.
 */
final class PrefixedObjectStore implements ObjectStore {
  private final ObjectStore parent;

  /** The prefix with its trailing slash. */
  private final String prefix;

  /**
   * @param prefix a valid key prefix without trailing slash, e.g. {@code partitions/3}
   */
  PrefixedObjectStore(ObjectStore parent, String prefix) {
    this.parent = Objects.requireNonNull(parent, "parent");
    String trimmed = Objects.requireNonNull(prefix, "prefix");
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    this.prefix = ObjectKeys.check(trimmed) + "/";
  }

  private String full(String key) {
    return prefix + ObjectKeys.check(key);
  }

  /** A listing prefix may be empty or end with '/', so it is not a key: only kept from escaping. */
  private String fullPrefix(String listPrefix) {
    Objects.requireNonNull(listPrefix, "prefix");
    if (listPrefix.startsWith("/")
        || Arrays.stream(listPrefix.split("/", -1))
            .anyMatch(segment -> segment.equals("..") || segment.equals("."))) {
      throw new IllegalArgumentException(
          StorageErrors.invalidKey(
              listPrefix,
              "a listing prefix of " + location() + " must be relative and stay inside it"));
    }
    return prefix + listPrefix;
  }

  private List<ObjectInfo> strip(List<ObjectInfo> infos) {
    List<ObjectInfo> out = new ArrayList<>(infos.size());
    for (ObjectInfo info : infos) {
      if (info.key().startsWith(prefix)) { // always, the parent lists under our prefix only
        out.add(
            new ObjectInfo(
                info.key().substring(prefix.length()), info.size(), info.lastModified()));
      }
    }
    return out;
  }

  @Override
  public String location() {
    String base = parent.location();
    return (base.endsWith("/") ? base : base + "/") + prefix.substring(0, prefix.length() - 1);
  }

  /** A read of the parent, its not-found naming this store's key and location. */
  private interface Read<T> {
    T run(String fullKey) throws IOException;
  }

  private <T> T reading(String key, Read<T> read) throws IOException {
    String fullKey = full(key);
    try {
      return read.run(fullKey);
    } catch (ObjectNotFoundException e) {
      ObjectNotFoundException ours = new ObjectNotFoundException(location(), key);
      ours.initCause(e);
      throw ours;
    }
  }

  @Override
  public byte[] read(String key) throws IOException {
    return reading(key, parent::read);
  }

  @Override
  public byte[] readRange(String key, long offset, int length) throws IOException {
    return reading(key, k -> parent.readRange(k, offset, length));
  }

  @Override
  public InputStream open(String key) throws IOException {
    return reading(key, parent::open);
  }

  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    return parent
        .stat(full(key))
        .map(
            info ->
                new ObjectInfo(
                    info.key().startsWith(prefix) ? info.key().substring(prefix.length()) : key,
                    info.size(),
                    info.lastModified()));
  }

  @Override
  public List<ObjectInfo> list(String listPrefix, String startAfter) throws IOException {
    return strip(
        parent.list(fullPrefix(listPrefix), startAfter == null ? null : prefix + startAfter));
  }

  @Override
  public List<ObjectInfo> sample(String listPrefix, int limit) throws IOException {
    ObjectKeys.checkLimit(limit);
    return strip(parent.sample(fullPrefix(listPrefix), limit));
  }

  @Override
  public void put(String key, byte[] data) throws IOException {
    parent.put(full(key), data);
  }

  @Override
  public boolean putIfAbsent(String key, byte[] data) throws IOException {
    return parent.putIfAbsent(full(key), data);
  }

  @Override
  public ObjectWriter create(String key) throws IOException {
    return parent.create(full(key));
  }

  @Override
  public void delete(String key) throws IOException {
    parent.delete(full(key));
  }

  /** Nothing to release: the parent's clients are the parent owner's to close. */
  @Override
  public void close() {}
}
