package dev.tributary.config;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A storage location in a canonical form, so that two spellings of one place compare equal and a
 * location inside another is recognised: {@code s3://bucket/prefix} or an absolute local path.
 *
 * <p>Normalisation: the {@code s3://} scheme is case-insensitive; empty and {@code .} segments are
 * dropped and {@code ..} removes the segment before it (never climbing above the bucket or the
 * file-system root); trailing slashes do not matter; {@code file:} URIs and plain paths name the
 * same local place; a relative local path is resolved against a working directory. Local paths are
 * compared as written (symbolic links are not followed: the place may not exist yet).
 *
 * @param root {@code s3://bucket} for S3, empty for a local path
 * @param segments the path below the root: the S3 prefix's parts, or the local path's names
 */
public record Location(String root, List<String> segments) {

  private static final String S3 = "s3://";

  /** Copies the segments. */
  public Location {
    Objects.requireNonNull(root, "root");
    segments = List.copyOf(segments);
  }

  /**
   * Parses a location as a pipeline file declares it.
   *
   * @param text {@code s3://bucket[/prefix]}, {@code file:/path}, {@code file:///path} or a local
   *     path, absolute or relative
   * @param workingDirectory what relative local paths are resolved against
   * @throws IllegalArgumentException if a local path or {@code file:} URI is malformed
   */
  public static Location parse(String text, Path workingDirectory) {
    String location = text.strip();
    if (location.regionMatches(true, 0, S3, 0, S3.length())) {
      String rest = location.substring(S3.length());
      int slash = rest.indexOf('/');
      String bucket = slash < 0 ? rest : rest.substring(0, slash);
      return new Location(
          S3 + bucket.toLowerCase(Locale.ROOT), normalize(slash < 0 ? "" : rest.substring(slash)));
    }
    Path path;
    try {
      path =
          location.regionMatches(true, 0, "file:", 0, 5)
              ? Path.of(URI.create(location))
              : Path.of(location);
    } catch (IllegalArgumentException e) { // InvalidPathException is one too
      throw new IllegalArgumentException(
          "'" + text + "' is not a valid local path: " + e.getMessage(), e);
    }
    Path absolute = workingDirectory.toAbsolutePath().resolve(path);
    return new Location("", normalize(absolute.toString().replace('\\', '/')));
  }

  /** Whether {@code other} is this location or lies inside it. */
  public boolean contains(Location other) {
    return root.equals(other.root)
        && other.segments.size() >= segments.size()
        && other.segments.subList(0, segments.size()).equals(segments);
  }

  /** Whether one of the two locations lies inside the other, or they are equal. */
  public boolean overlaps(Location other) {
    return contains(other) || other.contains(this);
  }

  /** The canonical text: {@code s3://bucket/a/b} or {@code /a/b}. */
  @Override
  public String toString() {
    return root + "/" + String.join("/", segments);
  }

  private static List<String> normalize(String path) {
    List<String> out = new ArrayList<>();
    for (String segment : path.split("/")) {
      if (segment.isEmpty() || segment.equals(".")) {
        continue;
      }
      if (segment.equals("..")) {
        if (!out.isEmpty()) {
          out.remove(out.size() - 1);
        }
      } else {
        out.add(segment);
      }
    }
    return out;
  }
}
