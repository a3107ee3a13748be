package dev.tributary.storage;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Opens the {@link ObjectStore} for a location string, the way pipelines and tools name storage:
 *
 * <ul>
 *   <li>{@code s3://bucket} or {@code s3://bucket/some/prefix}: an S3 bucket (or S3-compatible
 *       server, see {@link S3Settings#endpoint()}), rooted at the optional prefix;
 *   <li>{@code file:///abs/path}: a local directory;
 *   <li>anything else: a local directory path, absolute or relative to the working directory.
 * </ul>
 */
public final class ObjectStores {
  private static final String S3_SCHEME = "s3://";

  private ObjectStores() {}

  /** Whether {@code location} names S3 storage ({@code s3://...}, scheme case-insensitive). */
  public static boolean isS3(String location) {
    return location != null && location.regionMatches(true, 0, S3_SCHEME, 0, S3_SCHEME.length());
  }

  /**
   * Opens the store at {@code location}. A local root directory is created if missing. Opening an
   * S3 store sends no request: a missing bucket or bad credentials surface, with a clear message,
   * on the first operation.
   *
   * @param location an {@code s3://bucket[/prefix]} URL, a {@code file:} URI or a local path
   * @param s3 how to reach S3; ignored for local locations; null means {@link
   *     S3Settings#defaults()}
   * @throws IllegalArgumentException if the location is malformed (the message says why)
   * @throws IOException if a local root directory cannot be created
   */
  public static ObjectStore open(String location, S3Settings s3) throws IOException {
    if (location == null || location.isBlank()) {
      throw new IllegalArgumentException(
          StorageErrors.invalidLocation(
              String.valueOf(location),
              "it is empty; give a directory path or s3://bucket/prefix"));
    }
    if (isS3(location)) {
      return openS3(location, s3 == null ? S3Settings.defaults() : s3);
    }
    return new LocalObjectStore(localPath(location));
  }

  private static ObjectStore openS3(String location, S3Settings settings) {
    String rest = location.substring(S3_SCHEME.length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    while (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException(
          StorageErrors.invalidLocation(location, "no bucket name; write s3://bucket/prefix"));
    }
    if (!bucket.equals(bucket.toLowerCase(Locale.ROOT))
        || bucket.contains("?")
        || bucket.contains("#")) {
      throw new IllegalArgumentException(
          StorageErrors.invalidLocation(
              location,
              "'"
                  + bucket
                  + "' is not a valid S3 bucket name (lower case letters, digits, '.' and"
                  + " '-')"));
    }
    if (!prefix.isEmpty()) {
      try {
        ObjectKeys.check(prefix);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            StorageErrors.invalidLocation(location, "bad prefix: " + e.getMessage()), e);
      }
      prefix = prefix + "/";
    }
    return new S3ObjectStore(bucket, prefix, settings);
  }

  // InvalidPathException is an IllegalArgumentException, so one catch covers bad paths and URIs.
  private static Path localPath(String location) {
    try {
      if (location.regionMatches(true, 0, "file:", 0, 5)) {
        return Path.of(URI.create(location));
      }
      return Path.of(location);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          StorageErrors.invalidLocation(
              location, e.getMessage() + "; give a directory path or a file:///absolute/path URI"),
          e);
    }
  }

  /**
   * The objects of {@code store} under {@code prefix} as a store of its own: key {@code k} is
   * {@code <prefix>/k} of {@code store}, listings strip the prefix, and closing the view does not
   * close {@code store} (so many views share one S3 client).
   *
   * @param prefix a key prefix such as {@code partitions/3} (a trailing slash is ignored)
   * @throws IllegalArgumentException if the prefix is not a valid key
   */
  public static ObjectStore under(ObjectStore store, String prefix) {
    return new PrefixedObjectStore(store, prefix);
  }
}
