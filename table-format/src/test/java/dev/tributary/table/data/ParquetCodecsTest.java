package dev.tributary.table.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ParquetCodecs} against Parquet's own Hadoop-based factory (on the test class path): pages
 * each one compresses, the other decompresses to the same bytes, both ways, for every codec ours
 * implements; so files we write read anywhere Parquet's codecs read, and theirs read here.
 */
class ParquetCodecsTest {
  private static final CompressionCodecFactory PARQUETS =
      new CodecFactory(new PlainParquetConfiguration(), ParquetProperties.DEFAULT_PAGE_SIZE);

  @ParameterizedTest
  @EnumSource(
      value = CompressionCodecName.class,
      names = {"UNCOMPRESSED", "SNAPPY", "ZSTD", "GZIP"})
  void pagesRoundTripBetweenOursAndParquetsFactory(CompressionCodecName codec) throws IOException {
    for (byte[] page : new byte[][] {new byte[0], text(), random(300_000)}) {
      byte[] ours = ParquetCodecs.INSTANCE.getCompressor(codec).compress(bytes(page)).toByteArray();
      byte[] theirs = PARQUETS.getCompressor(codec).compress(bytes(page)).toByteArray();

      assertThat(PARQUETS.getDecompressor(codec).decompress(bytes(ours), page.length).toByteArray())
          .isEqualTo(page);
      assertThat(
              ParquetCodecs.INSTANCE
                  .getDecompressor(codec)
                  .decompress(bytes(theirs), page.length)
                  .toByteArray())
          .isEqualTo(page);
      ByteBuffer out = ByteBuffer.allocate(page.length);
      ParquetCodecs.INSTANCE
          .getDecompressor(codec)
          .decompress(ByteBuffer.wrap(theirs), theirs.length, out, page.length);
      assertThat(out.array()).isEqualTo(page);
    }
  }

  @Test
  void aPageShorterThanItsHeaderSaysIsCorrupt() throws IOException {
    byte[] page = text();
    byte[] compressed =
        ParquetCodecs.INSTANCE
            .getCompressor(CompressionCodecName.GZIP)
            .compress(bytes(page))
            .toByteArray();

    assertThatThrownBy(
            () ->
                ParquetCodecs.INSTANCE
                    .getDecompressor(CompressionCodecName.GZIP)
                    .decompress(bytes(compressed), page.length + 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("GZIP")
        .hasMessageContaining("corrupt");
  }

  private static BytesInput bytes(byte[] page) {
    return BytesInput.from(page);
  }

  private static byte[] text() {
    return "order-42,customer-7,1999\n".repeat(4_000).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] random(int size) {
    byte[] page = new byte[size];
    new Random(27).nextBytes(page);
    return page;
  }
}
