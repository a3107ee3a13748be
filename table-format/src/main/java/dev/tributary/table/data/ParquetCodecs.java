package dev.tributary.table.data;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * The Parquet page codecs of every Tributary reader and writer, without Hadoop: snappy
 * (snappy-java), zstd (zstd-jni) and gzip (the JDK's zlib) compress and decompress pages directly;
 * stateless, so one instance serves every file and thread.
 *
 * <p>Why: Parquet's own {@code CodecFactory} goes through Hadoop's {@code Configuration} and codec
 * classes, and Hadoop's {@code Configuration} cannot even be loaded without the XML parser shaded
 * inside {@code hadoop-client-runtime} (30 MB of the service jar; docs/DESIGN.md, "Footprint"). The
 * bytes are the same formats Parquet's codecs write (zstd at Parquet's default level 3), so Spark
 * and Delta Kernel read them, and these read theirs. Other codecs (LZ4_RAW, LZ4, LZO, BROTLI) are
 * left to Parquet's factory, which works only where Hadoop's runtime jar is on the class path (the
 * tests); in the service jar reading such a file fails with a message naming the codec.
 */
public final class ParquetCodecs implements CompressionCodecFactory {
  /** The shared instance. */
  public static final ParquetCodecs INSTANCE = new ParquetCodecs();

  /** Parquet's default zstd level ({@code parquet.compression.codec.zstd.level}). */
  private static final int ZSTD_LEVEL = 3;

  private ParquetCodecs() {}

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codecName) {
    return switch (codecName) {
      case UNCOMPRESSED, SNAPPY, ZSTD, GZIP -> new Compressor(codecName);
      default -> HadoopCodecs.factory(codecName).getCompressor(codecName);
    };
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codecName) {
    return switch (codecName) {
      case UNCOMPRESSED, SNAPPY, ZSTD, GZIP -> new Decompressor(codecName);
      default -> HadoopCodecs.factory(codecName).getDecompressor(codecName);
    };
  }

  @Override
  public void release() {
    // Nothing pooled.
  }

  static byte[] compress(CompressionCodecName codec, byte[] input) throws IOException {
    return switch (codec) {
      case UNCOMPRESSED -> input;
      case SNAPPY -> Snappy.compress(input);
      case ZSTD -> Zstd.compress(input, ZSTD_LEVEL);
      case GZIP -> {
        ByteArrayOutputStream out = new ByteArrayOutputStream(input.length / 2 + 64);
        try (GZIPOutputStream gzip = new GZIPOutputStream(out, 64 * 1024)) {
          gzip.write(input);
        }
        yield out.toByteArray();
      }
      default -> throw new IllegalArgumentException(codec.name());
    };
  }

  static byte[] decompress(CompressionCodecName codec, byte[] input, int uncompressedSize)
      throws IOException {
    if (uncompressedSize == 0) {
      return new byte[0]; // Parquet's snappy writes an empty page as no bytes at all
    }
    byte[] out;
    int length;
    switch (codec) {
      case UNCOMPRESSED -> {
        return input;
      }
      case SNAPPY -> {
        out = new byte[uncompressedSize];
        length = Snappy.uncompress(input, 0, input.length, out, 0);
      }
      case ZSTD -> {
        out = new byte[uncompressedSize];
        length = (int) Zstd.decompress(out, input);
      }
      case GZIP -> {
        try (InputStream gzip =
            new GZIPInputStream(new java.io.ByteArrayInputStream(input), 64 * 1024)) {
          out = gzip.readNBytes(uncompressedSize);
          length = out.length;
        }
      }
      default -> throw new IllegalArgumentException(codec.name());
    }
    if (length != uncompressedSize) {
      throw new IOException(DataErrors.pageSizeMismatch(codec.name(), uncompressedSize, length));
    }
    return out;
  }

  private record Compressor(CompressionCodecName codec) implements BytesInputCompressor {
    @Override
    public BytesInput compress(BytesInput bytes) throws IOException {
      return codec == CompressionCodecName.UNCOMPRESSED
          ? bytes
          : BytesInput.from(ParquetCodecs.compress(codec, bytes.toByteArray()));
    }

    @Override
    public CompressionCodecName getCodecName() {
      return codec;
    }

    @Override
    public void release() {
      // Nothing pooled.
    }
  }

  private record Decompressor(CompressionCodecName codec) implements BytesInputDecompressor {
    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      return codec == CompressionCodecName.UNCOMPRESSED
          ? bytes
          : BytesInput.from(ParquetCodecs.decompress(codec, bytes.toByteArray(), uncompressedSize));
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
        throws IOException {
      byte[] compressed = new byte[compressedSize];
      input.get(compressed);
      output.put(ParquetCodecs.decompress(codec, compressed, uncompressedSize));
    }

    @Override
    public void release() {
      // Nothing pooled.
    }
  }

  /** Parquet's Hadoop-based factory, made on first use for a codec the class above lacks. */
  private static final class HadoopCodecs {
    private static volatile CodecFactory factory;

    static CodecFactory factory(CompressionCodecName codec) {
      try {
        CodecFactory made = factory;
        if (made == null) {
          synchronized (HadoopCodecs.class) {
            if (factory == null) {
              factory =
                  new CodecFactory(
                      new PlainParquetConfiguration(), ParquetProperties.DEFAULT_PAGE_SIZE);
            }
            made = factory;
          }
        }
        return made;
      } catch (NoClassDefFoundError e) {
        throw new UncheckedIOException(
            new IOException(DataErrors.codecNeedsHadoop(codec.name()), e));
      }
    }
  }
}
