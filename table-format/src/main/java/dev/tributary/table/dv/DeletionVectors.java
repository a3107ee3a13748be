package dev.tributary.table.dv;

import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads deletion vectors from, and writes them to, a table's store (rooted at the table directory).
 * Every failure to read one names the vector and why; the callers add the table and the data file.
 * Stateless.
 */
public final class DeletionVectors {
  private DeletionVectors() {}

  /**
   * The rows a deletion vector deletes: decoded from the log for an inline vector, else read with
   * one ranged read from its file and checked (size, CRC-32).
   *
   * @throws IOException if the file cannot be read (an {@link
   *     dev.tributary.storage.ObjectNotFoundException} if it is gone)
   * @throws IllegalArgumentException if the vector is corrupt (checksum, size, format, cardinality)
   *     or its absolute path lies outside the table
   */
  public static RoaringBitmapArray load(ObjectStore tableStore, DeletionVectorDescriptor dv)
      throws IOException {
    RoaringBitmapArray rows;
    if (dv.storageType() == DeletionVectorDescriptor.StorageType.INLINE) {
      rows = RoaringBitmapArray.deserialize(Z85.decode(dv.pathOrInlineDv(), dv.sizeInBytes()));
    } else {
      String key = key(tableStore, dv);
      byte[] entry =
          tableStore.readRange(
              key, dv.offsetOrZero(), DeletionVectorFile.entryLength(dv.sizeInBytes()));
      try {
        rows = DeletionVectorFile.decodeEntry(entry, dv.sizeInBytes());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "the entry at byte "
                + dv.offsetOrZero()
                + " of '"
                + key
                + "' is corrupt: "
                + e.getMessage(),
            e);
      }
    }
    if (rows.cardinality() != dv.cardinality()) {
      throw new IllegalArgumentException(
          "the deletion vector holds "
              + rows.cardinality()
              + " rows where the log says "
              + dv.cardinality());
    }
    return rows;
  }

  /**
   * The key under the table root of a vector's file.
   *
   * @throws IllegalArgumentException for an inline vector, or an absolute path outside the table
   *     (Tributary reads only what lies under the table root)
   */
  public static String key(ObjectStore tableStore, DeletionVectorDescriptor dv) {
    return switch (dv.storageType()) {
      case RELATIVE -> dv.relativePath();
      case ABSOLUTE -> keyUnderRoot(tableStore.location(), dv.pathOrInlineDv());
      case INLINE ->
          throw new IllegalArgumentException("an inline deletion vector is stored in the log");
    };
  }

  /**
   * Writes one deletion vector file holding {@code bitmaps} under the table root (with a single
   * {@code put}: a reader never sees half a file) and returns a descriptor per bitmap, in order.
   *
   * @param prefix the random directory prefix ("" for none)
   */
  public static List<DeletionVectorDescriptor> write(
      ObjectStore tableStore, String prefix, List<RoaringBitmapArray> bitmaps) throws IOException {
    UUID id = UUID.randomUUID();
    DeletionVectorFile.Encoded file = DeletionVectorFile.encode(bitmaps);
    tableStore.put(DeletionVectorDescriptor.fileName(prefix, id), file.bytes());
    List<DeletionVectorDescriptor> out = new ArrayList<>(bitmaps.size());
    for (DeletionVectorFile.Entry e : file.entries()) {
      out.add(
          DeletionVectorDescriptor.inFile(
              prefix, id, e.offset(), e.sizeInBytes(), e.cardinality()));
    }
    return out;
  }

  /** The part of an absolute URI or path after the table root, or a refusal. */
  static String keyUnderRoot(String location, String absolute) {
    String path = normalize(absolute);
    String root = normalize(location);
    if (!root.endsWith("/")) {
      root = root + "/";
    }
    if (!path.startsWith(root) || path.length() == root.length()) {
      throw new IllegalArgumentException(
          "the deletion vector file '"
              + absolute
              + "' lies outside the table at "
              + location
              + "; Tributary reads only files under the table root");
    }
    return path.substring(root.length());
  }

  /** A URI or path without its {@code file:} scheme and without percent-encoding. */
  private static String normalize(String pathOrUri) {
    if (pathOrUri.startsWith("file:")) {
      return URI.create(pathOrUri).getPath();
    }
    if (pathOrUri.contains("://")) {
      URI uri = URI.create(pathOrUri);
      return uri.getScheme() + "://" + uri.getAuthority() + uri.getPath();
    }
    return pathOrUri;
  }
}
