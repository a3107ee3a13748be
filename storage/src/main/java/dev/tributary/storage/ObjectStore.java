package dev.tributary.storage;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * A flat namespace of immutable-by-convention objects under one root (a local directory or an S3
 * bucket and prefix). Keys are relative to that root, use {@code /} as separator, and never start
 * with {@code /}.
 *
 * <p>Consistency: every implementation gives read-after-write consistency for {@link #put}, {@link
 * #putIfAbsent} and {@link ObjectWriter#close()}, and {@link #list} reflects every completed write.
 * A reader never observes a partially written object.
 *
 * <p>Errors: a missing object is {@link ObjectNotFoundException}; anything else the backend reports
 * is an {@link IOException} whose message names the store and the key. Implementations retry
 * transient backend errors themselves (bounded), so an {@code IOException} that reaches the caller
 * is final for that call.
 *
 * <p>Implementations are thread-safe. {@link #close()} releases clients and pools.
 */
public interface ObjectStore extends AutoCloseable {

  /** A human-readable location of this store's root, e.g. {@code s3://bucket/prefix} or a path. */
  String location();

  /**
   * Reads a whole object.
   *
   * @throws ObjectNotFoundException if no object has that key
   */
  byte[] read(String key) throws IOException;

  /**
   * Reads {@code length} bytes starting at {@code offset}. A range reaching past the end of the
   * object returns the bytes up to the end.
   *
   * @throws ObjectNotFoundException if no object has that key
   */
  byte[] readRange(String key, long offset, int length) throws IOException;

  /**
   * Opens a stream over a whole object. The caller closes it.
   *
   * @throws ObjectNotFoundException if no object has that key
   */
  InputStream open(String key) throws IOException;

  /** Size and modification time of an object, or empty if no object has that key. */
  Optional<ObjectInfo> stat(String key) throws IOException;

  /**
   * Lists every object whose key starts with {@code prefix} (recursively, not just one "directory"
   * level), sorted by key in ascending unsigned-byte (UTF-8) order.
   */
  default List<ObjectInfo> list(String prefix) throws IOException {
    return list(prefix, null);
  }

  /**
   * Like {@link #list(String)}, but only keys strictly greater than {@code startAfter} (which may
   * be null). Delta log replay uses this to list commits after a checkpoint without listing the
   * whole log.
   */
  List<ObjectInfo> list(String prefix, String startAfter) throws IOException;

  /**
   * Up to {@code limit} objects whose key starts with {@code prefix} (recursively), sorted by key;
   * when more exist, which ones are returned is unspecified. Empty exactly when {@link
   * #list(String)} would be. Unlike {@code list}, its cost is bounded by {@code limit}, not by what
   * the prefix holds (S3: one request; local disk: the walk stops at the limit), so checking that a
   * prefix holds nothing stays cheap however full it is.
   *
   * @throws IllegalArgumentException if {@code limit} is below 1
   */
  default List<ObjectInfo> sample(String prefix, int limit) throws IOException {
    ObjectKeys.checkLimit(limit);
    List<ObjectInfo> all = list(prefix);
    return all.size() <= limit ? all : List.copyOf(all.subList(0, limit));
  }

  /**
   * Writes an object, replacing any existing one. Atomic: readers see the old or the new object.
   */
  void put(String key, byte[] data) throws IOException;

  /**
   * Creates an object only if no object has that key: THE commit primitive.
   *
   * <p>Atomic and exclusive: when several callers race on one key, exactly one returns {@code true}
   * and the others {@code false}; an existing object is never modified.
   *
   * <p>An {@code IOException} means the outcome is unknown: the object may or may not have been
   * created by this call. Callers must resolve that by reading, never by deleting.
   *
   * @return true if this call created the object, false if an object already had that key
   */
  boolean putIfAbsent(String key, byte[] data) throws IOException;

  /**
   * Starts a streaming write of a possibly large object (S3: a multipart upload). The object
   * becomes visible, replacing any existing one, only when {@link ObjectWriter#close()} returns
   * normally; {@link ObjectWriter#abort()} discards it. The caller must close or abort the writer.
   */
  ObjectWriter create(String key) throws IOException;

  /** Deletes an object. Deleting a missing key is not an error. */
  void delete(String key) throws IOException;

  /** Releases clients and connection pools. */
  @Override
  void close() throws IOException;
}
