package dev.tributary.table.dv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

class RoaringBitmapArrayTest {
  private static final long FOUR_G = 1L << 32;

  @Test
  void theInlineVectorOfProtocolExampleThreeHoldsItsRows() {
    // PROTOCOL.md, "JSON Example 3 — Inline": sizeInBytes 40, rows 3, 4, 7, 11, 18, 29
    byte[] bytes = Z85.decode("wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", 40);
    RoaringBitmapArray rows = RoaringBitmapArray.deserialize(bytes);
    assertThat(rows.toArray()).containsExactly(3, 4, 7, 11, 18, 29);
    assertThat(rows.cardinality()).isEqualTo(6);
    // the example is NATIVE with a big-endian header (a preview's); the same bucket follows it
    byte[] ours = rows.serialize(RoaringBitmapArray.Format.NATIVE);
    assertThat(Arrays.copyOfRange(ours, 12, ours.length))
        .isEqualTo(Arrays.copyOfRange(bytes, 12, bytes.length));
    assertThat(RoaringBitmapArray.deserialize(ours)).isEqualTo(rows);
  }

  @Test
  void bothFormatsRoundTripRowsInSeveralBucketsAndRanges() {
    RoaringBitmapArray rows = RoaringBitmapArray.of(0, 5, FOUR_G - 1, FOUR_G, 3 * FOUR_G + 7);
    rows.addRange(100_000, 300_000); // a run: stored as a run container
    rows.addRange(2 * FOUR_G - 2, 2 * FOUR_G + 2); // a range across a bucket boundary
    for (RoaringBitmapArray.Format format : RoaringBitmapArray.Format.values()) {
      byte[] bytes = rows.serialize(format);
      assertThat(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt())
          .isEqualTo(format.magic());
      RoaringBitmapArray read = RoaringBitmapArray.deserialize(bytes);
      assertThat(read).as(format.name()).isEqualTo(rows);
      assertThat(read.cardinality()).isEqualTo(5 + 200_000 + 4);
      assertThat(read.contains(2 * FOUR_G - 1)).isTrue();
      assertThat(read.contains(2 * FOUR_G + 2)).isFalse();
      assertThat(read.contains(FOUR_G + 1)).isFalse();
      assertThat(read.contains(-1)).isFalse();
    }
  }

  @Test
  void randomSetsEqualAReferenceSet() {
    Random random = new Random(42);
    for (int round = 0; round < 20; round++) {
      RoaringBitmapArray rows = new RoaringBitmapArray();
      TreeSet<Long> expected = new TreeSet<>();
      for (int i = 0; i < 2000; i++) {
        long row = random.nextInt(4) * FOUR_G + random.nextInt(70_000);
        rows.add(row);
        expected.add(row);
      }
      RoaringBitmapArray read =
          RoaringBitmapArray.deserialize(
              rows.serialize(RoaringBitmapArray.Format.values()[round % 2]));
      assertThat(read.toArray())
          .containsExactly(expected.stream().mapToLong(Long::longValue).toArray());
    }
  }

  @Test
  void ourPortableFormatIsRoaringsOwn64BitPortableFormatAfterTheMagicNumber() {
    RoaringBitmapArray rows = RoaringBitmapArray.of(1, 2, 3, FOUR_G + 9, 5 * FOUR_G);
    Roaring64NavigableMap reference = new Roaring64NavigableMap();
    for (long row : rows.toArray()) {
      reference.addLong(row);
    }
    ByteArrayOutputStream theirs = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(theirs)) {
      reference.serializePortable(out);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    byte[] ours = rows.serialize();
    assertThat(Arrays.copyOfRange(ours, 4, ours.length)).isEqualTo(theirs.toByteArray());
  }

  @Test
  void emptyBucketsAsDeltaWritesThemAreRead() throws IOException {
    // Delta's writer lists every bucket up to the last, empty ones included: keys 0, 1, 2
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(Integer.reverseBytes(RoaringBitmapArray.Format.PORTABLE.magic()));
    out.writeLong(Long.reverseBytes(3));
    for (int key = 0; key < 3; key++) {
      out.writeInt(Integer.reverseBytes(key));
      (key == 1 ? new RoaringBitmap() : RoaringBitmap.bitmapOf(key, 10)).serialize(out);
    }
    RoaringBitmapArray read = RoaringBitmapArray.deserialize(bytes.toByteArray());
    assertThat(read.toArray()).containsExactly(0, 10, 2 * FOUR_G + 2, 2 * FOUR_G + 10);
  }

  @Test
  void anEmptySetRoundTrips() {
    for (RoaringBitmapArray.Format format : RoaringBitmapArray.Format.values()) {
      RoaringBitmapArray read =
          RoaringBitmapArray.deserialize(new RoaringBitmapArray().serialize(format));
      assertThat(read.isEmpty()).isTrue();
    }
  }

  @Test
  void corruptBytesAreRefusedWithTheReason() {
    byte[] good = RoaringBitmapArray.of(1, FOUR_G).serialize();
    byte[] badMagic = good.clone();
    badMagic[3] ^= 0x40;
    assertThatThrownBy(() -> RoaringBitmapArray.deserialize(badMagic))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown magic number");
    byte[] longer = Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> RoaringBitmapArray.deserialize(longer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 bytes left after the bitmap");
    byte[] shorter = Arrays.copyOf(good, good.length - 3);
    assertThatThrownBy(() -> RoaringBitmapArray.deserialize(shorter))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a valid serialized bitmap");
    ByteBuffer descending = ByteBuffer.wrap(good.clone()).order(ByteOrder.LITTLE_ENDIAN);
    int secondKey = 16 + RoaringBitmap.bitmapOf(1).serializedSizeInBytes();
    assertThat(descending.getInt(secondKey)).isEqualTo(1);
    descending.putInt(secondKey, 0); // the second key becomes 0, like the first
    assertThatThrownBy(() -> RoaringBitmapArray.deserialize(descending.array()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not above the previous key");
  }

  @Test
  void negativeRowsAreRefused() {
    assertThatThrownBy(() -> RoaringBitmapArray.of(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative, was -1");
  }
}
