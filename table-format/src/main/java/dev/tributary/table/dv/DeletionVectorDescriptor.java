package dev.tributary.table.dv;

import java.util.Objects;
import java.util.UUID;

/**
 * The {@code deletionVector} of an {@code add} or {@code remove} action (Delta PROTOCOL.md,
 * "Deletion Vectors"): where the set of deleted row indexes of one data file is stored and how many
 * rows it deletes. Example (on disk, relative to the table root, with a random prefix {@code ab}):
 *
 * <pre>{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":4,
 *  "sizeInBytes":40,"cardinality":6}</pre>
 *
 * is the bitmap of 40 bytes at byte 4 of {@code
 * ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin}.
 *
 * @param storageType how the bitmap is stored
 * @param pathOrInlineDv {@code u}: an optional random prefix, then the file's UUID in 20 {@link
 *     Z85} characters; {@code i}: the serialized bitmap in Z85; {@code p}: the file's absolute path
 *     (a URI, as the {@code path} of an {@code add})
 * @param offset where the bitmap's entry starts in its file (its 4-byte size), null for inline (and
 *     read as 0 when absent for a file)
 * @param sizeInBytes the serialized bitmap's size, without the file's size and checksum fields
 * @param cardinality the number of rows it deletes
 */
public record DeletionVectorDescriptor(
    StorageType storageType,
    String pathOrInlineDv,
    Integer offset,
    int sizeInBytes,
    long cardinality) {

  /** Delta's storage types, by the single letter the log holds. */
  public enum StorageType {
    /** {@code i}: the bitmap itself, in Z85, in the log. */
    INLINE("i"),
    /** {@code u}: a file under the table root named by a UUID (and an optional prefix). */
    RELATIVE("u"),
    /** {@code p}: a file at an absolute path. */
    ABSOLUTE("p");

    private final String code;

    StorageType(String code) {
      this.code = code;
    }

    /** The letter of the log's {@code storageType} field. */
    public String code() {
      return code;
    }

    /**
     * The type of a letter.
     *
     * @throws IllegalArgumentException for any other letter
     */
    public static StorageType ofCode(String code) {
      for (StorageType t : values()) {
        if (t.code.equals(code)) {
          return t;
        }
      }
      throw new IllegalArgumentException(
          "unknown deletion vector storageType '" + code + "' (expected u, i or p)");
    }
  }

  /** Length of a UUID in Z85: the end of a relative {@code pathOrInlineDv}. */
  private static final int UUID_LENGTH = 20;

  public DeletionVectorDescriptor {
    Objects.requireNonNull(storageType, "storageType");
    Objects.requireNonNull(pathOrInlineDv, "pathOrInlineDv");
    if (sizeInBytes < 0 || cardinality < 0) {
      throw new IllegalArgumentException(
          "deletion vector size and cardinality must not be negative: "
              + sizeInBytes
              + ", "
              + cardinality);
    }
    if (storageType == StorageType.INLINE && offset != null) {
      throw new IllegalArgumentException("an inline deletion vector has no offset");
    }
    if (storageType == StorageType.RELATIVE && pathOrInlineDv.length() < UUID_LENGTH) {
      throw new IllegalArgumentException(
          "a relative deletion vector's pathOrInlineDv ends with a 20-character UUID, '"
              + pathOrInlineDv
              + "' is too short");
    }
  }

  /** An inline deletion vector holding {@code rows}. */
  public static DeletionVectorDescriptor inline(RoaringBitmapArray rows) {
    byte[] bytes = rows.serialize();
    return new DeletionVectorDescriptor(
        StorageType.INLINE, Z85.encode(bytes), null, bytes.length, rows.cardinality());
  }

  /**
   * A deletion vector in the file {@link #fileName(String, UUID)} under the table root.
   *
   * @param prefix the random directory prefix ("" for none), letters and digits only
   */
  public static DeletionVectorDescriptor inFile(
      String prefix, UUID file, int offset, int sizeInBytes, long cardinality) {
    if (!prefix.chars().allMatch(Character::isLetterOrDigit)) {
      throw new IllegalArgumentException(
          "a deletion vector file prefix holds letters and digits only, was '" + prefix + "'");
    }
    return new DeletionVectorDescriptor(
        StorageType.RELATIVE, prefix + Z85.encodeUuid(file), offset, sizeInBytes, cardinality);
  }

  /**
   * The key, relative to the table root, of a deletion vector file: {@code
   * [prefix/]deletion_vector_<uuid>.bin}.
   */
  public static String fileName(String prefix, UUID file) {
    return (prefix.isEmpty() ? "" : prefix + "/") + "deletion_vector_" + file + ".bin";
  }

  /**
   * The logical file's identity besides its path (Delta's derived {@code uniqueId}): {@code
   * <storageType><pathOrInlineDv>}, then {@code @<offset>} if there is an offset.
   */
  public String uniqueId() {
    return storageType.code() + pathOrInlineDv + (offset == null ? "" : "@" + offset);
  }

  /** The offset of the bitmap's entry in its file; 0 when absent. */
  public int offsetOrZero() {
    return offset == null ? 0 : offset;
  }

  /**
   * For a {@link StorageType#RELATIVE} vector, its file's key under the table root.
   *
   * @throws IllegalStateException for another storage type
   * @throws IllegalArgumentException if the UUID is not valid Z85
   */
  public String relativePath() {
    if (storageType != StorageType.RELATIVE) {
      throw new IllegalStateException("a " + storageType + " deletion vector has no relative path");
    }
    int split = pathOrInlineDv.length() - UUID_LENGTH;
    return fileName(
        pathOrInlineDv.substring(0, split), Z85.decodeUuid(pathOrInlineDv.substring(split)));
  }
}
