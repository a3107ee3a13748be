package dev.tributary.table.dv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.testing.InMemoryObjectStore;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DeletionVectorsTest {
  private final InMemoryObjectStore store = new InMemoryObjectStore();

  @Test
  void aFileOfSeveralVectorsIsWrittenAndEachIsReadBackByItsDescriptor() throws IOException {
    RoaringBitmapArray first = RoaringBitmapArray.of(0, 2, 4);
    RoaringBitmapArray second = RoaringBitmapArray.of(1L << 33, 7);
    List<DeletionVectorDescriptor> written =
        DeletionVectors.write(store, "xy", List.of(first, second));

    assertThat(written).hasSize(2);
    assertThat(written.get(0).offset()).as("after the version byte").isEqualTo(1);
    assertThat(written.get(1).offset())
        .isEqualTo(1 + DeletionVectorFile.entryLength(written.get(0).sizeInBytes()));
    assertThat(written.get(0).cardinality()).isEqualTo(3);
    String key = written.get(0).relativePath();
    assertThat(key).startsWith("xy/deletion_vector_").endsWith(".bin");
    assertThat(store.read(key)[0]).isEqualTo(DeletionVectorFile.VERSION);
    assertThat(DeletionVectors.load(store, written.get(0))).isEqualTo(first);
    assertThat(DeletionVectors.load(store, written.get(1))).isEqualTo(second);
    assertThat(written.get(0).uniqueId())
        .isEqualTo("u" + written.get(0).pathOrInlineDv() + "@1")
        .isNotEqualTo(written.get(1).uniqueId());
  }

  @Test
  void anInlineVectorNeedsNoFile() throws IOException {
    DeletionVectorDescriptor inline = DeletionVectorDescriptor.inline(RoaringBitmapArray.of(5, 6));
    assertThat(inline.offset()).isNull();
    assertThat(inline.uniqueId()).isEqualTo("i" + inline.pathOrInlineDv());
    assertThat(DeletionVectors.load(store, inline).toArray()).containsExactly(5, 6);
  }

  @Test
  void anAbsolutePathUnderTheTableIsReadAndOneOutsideIsRefused() throws IOException {
    DeletionVectorDescriptor relative =
        DeletionVectors.write(store, "", List.of(RoaringBitmapArray.of(9))).get(0);
    String absolute = store.location() + "/" + relative.relativePath();
    DeletionVectorDescriptor byPath =
        new DeletionVectorDescriptor(
            DeletionVectorDescriptor.StorageType.ABSOLUTE, absolute, 1, relative.sizeInBytes(), 1);
    assertThat(DeletionVectors.load(store, byPath).toArray()).containsExactly(9);
    assertThat(DeletionVectors.keyUnderRoot("/data/t", "file:/data/t/a%20b/dv.bin"))
        .isEqualTo("a b/dv.bin");
    assertThat(DeletionVectors.keyUnderRoot("s3://b/t", "s3://b/t/dv.bin")).isEqualTo("dv.bin");
    assertThatThrownBy(() -> DeletionVectors.keyUnderRoot("/data/t", "/data/other/dv.bin"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lies outside the table at /data/t");
  }

  @Test
  void aCorruptEntryIsRefusedNamingTheFileAndTheReason() throws IOException {
    DeletionVectorDescriptor dv =
        DeletionVectors.write(store, "", List.of(RoaringBitmapArray.of(1, 2, 3))).get(0);
    byte[] bytes = store.read(dv.relativePath());
    bytes[6] ^= 0x10; // a byte of the bitmap: the checksum no longer matches
    store.put(dv.relativePath(), bytes);
    assertThatThrownBy(() -> DeletionVectors.load(store, dv))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the entry at byte 1 of '" + dv.relativePath() + "' is corrupt")
        .hasMessageContaining("checksum mismatch");

    DeletionVectorDescriptor wrongSize =
        new DeletionVectorDescriptor(
            dv.storageType(), dv.pathOrInlineDv(), 1, dv.sizeInBytes() - 1, dv.cardinality());
    assertThatThrownBy(() -> DeletionVectors.load(store, wrongSize))
        .hasMessageContaining("the file stores a bitmap of " + dv.sizeInBytes() + " bytes");
  }

  @Test
  void aCardinalityThatDisagreesWithTheLogIsRefused() {
    DeletionVectorDescriptor inline = DeletionVectorDescriptor.inline(RoaringBitmapArray.of(5, 6));
    DeletionVectorDescriptor lying =
        new DeletionVectorDescriptor(
            inline.storageType(), inline.pathOrInlineDv(), null, inline.sizeInBytes(), 3);
    assertThatThrownBy(() -> DeletionVectors.load(store, lying))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds 2 rows where the log says 3");
  }

  @Test
  void aMissingFileIsNotFound() {
    DeletionVectorDescriptor gone =
        DeletionVectorDescriptor.inFile("", UUID.randomUUID(), 1, 10, 1);
    assertThatThrownBy(() -> DeletionVectors.load(store, gone))
        .isInstanceOf(ObjectNotFoundException.class);
  }

  @Test
  void descriptorsRefuseWhatTheProtocolForbids() {
    assertThatThrownBy(
            () ->
                new DeletionVectorDescriptor(
                    DeletionVectorDescriptor.StorageType.INLINE, "abcde", 0, 4, 1))
        .hasMessageContaining("an inline deletion vector has no offset");
    assertThatThrownBy(() -> DeletionVectorDescriptor.StorageType.ofCode("x"))
        .hasMessageContaining("unknown deletion vector storageType 'x'");
    assertThatThrownBy(() -> DeletionVectorDescriptor.inFile("a/b", UUID.randomUUID(), 1, 1, 1))
        .hasMessageContaining("letters and digits only");
  }
}
