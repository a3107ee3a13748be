package dev.tributary.storage;

import java.time.Instant;
import java.util.Objects;

/**
 * What a listing or stat tells about one object.
 *
 * @param key the key relative to the store's root
 * @param size size in bytes
 * @param lastModified when the object was last written, as the backend reports it
 */
public record ObjectInfo(String key, long size, Instant lastModified) {
  public ObjectInfo {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lastModified, "lastModified");
    if (size < 0) {
      throw new IllegalArgumentException("negative size " + size + " for " + key);
    }
  }
}
