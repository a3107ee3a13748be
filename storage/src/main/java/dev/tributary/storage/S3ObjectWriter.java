package dev.tributary.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A streaming write to S3. Bytes are buffered up to one part; an object that fits in one part is
 * sent by a single PUT on {@link #close()}, a larger one as a multipart upload whose parts are sent
 * as they fill and which is completed on {@code close()}. S3 publishes the object only when the
 * upload completes, so readers never see part of it. {@link #abort()}, and a {@code close()} that
 * fails, abort the multipart upload so that no parts are left to be billed. Not thread-safe.
 */
final class S3ObjectWriter extends ObjectWriter {
  private static final int INITIAL_BUFFER = 64 * 1024;

  private final S3Client client;
  private final String bucket;
  private final String s3Key;
  private final String key;
  private final int partSize;
  private final S3Errors errors;
  private final List<CompletedPart> parts = new ArrayList<>();
  private byte[] buffer;
  private int count;
  private long position;
  private String uploadId;
  private boolean finished;
  private IOException failure;

  S3ObjectWriter(
      S3Client client, String bucket, String s3Key, String key, int partSize, S3Errors errors) {
    this.client = client;
    this.bucket = bucket;
    this.s3Key = s3Key;
    this.key = key;
    this.partSize = partSize;
    this.errors = errors;
    this.buffer = new byte[Math.min(INITIAL_BUFFER, partSize)];
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    ensureOpen();
    Objects.checkFromIndexSize(offset, length, bytes.length);
    while (length > 0) {
      if (count == partSize) {
        // Only sent once more bytes arrive: an object of exactly one part stays a single PUT.
        uploadPart();
      }
      int n = Math.min(length, partSize - count);
      ensureCapacity(count + n);
      System.arraycopy(bytes, offset, buffer, count, n);
      count += n;
      offset += n;
      length -= n;
      position += n;
    }
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public void abort() throws IOException {
    if (finished) {
      return;
    }
    finished = true;
    buffer = null;
    abortUpload();
  }

  @Override
  public void close() throws IOException {
    if (finished) {
      return;
    }
    if (failure != null) {
      finished = true;
      throw new IOException(
          "Object "
              + key
              + " was not written: an earlier upload failed ("
              + failure.getMessage()
              + ")",
          failure);
    }
    finished = true;
    try {
      if (uploadId == null) {
        client.putObject(
            b -> b.bucket(bucket).key(s3Key), RequestBody.fromBytes(Arrays.copyOf(buffer, count)));
      } else {
        if (count > 0) {
          uploadPart();
        }
        client.completeMultipartUpload(
            b ->
                b.bucket(bucket)
                    .key(s3Key)
                    .uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts)));
      }
    } catch (SdkException | IOException e) {
      IOException failure =
          e instanceof SdkException sdk ? errors.translate("write", key, sdk) : (IOException) e;
      try {
        abortUpload();
      } catch (IOException suppressed) {
        failure.addSuppressed(suppressed);
      }
      throw failure;
    } finally {
      buffer = null;
    }
  }

  private void uploadPart() throws IOException {
    try {
      if (uploadId == null) {
        uploadId = client.createMultipartUpload(b -> b.bucket(bucket).key(s3Key)).uploadId();
      }
      int partNumber = parts.size() + 1;
      String etag =
          client
              .uploadPart(
                  b ->
                      b.bucket(bucket)
                          .key(s3Key)
                          .uploadId(uploadId)
                          .partNumber(partNumber)
                          .contentLength((long) count),
                  RequestBody.fromBytes(
                      count == buffer.length ? buffer : Arrays.copyOf(buffer, count)))
              .eTag();
      parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
      count = 0;
    } catch (SdkException e) {
      failure = errors.translate("multipart upload", key, e);
      try {
        abortUpload();
      } catch (IOException suppressed) {
        failure.addSuppressed(suppressed);
      }
      throw failure;
    }
  }

  private void abortUpload() throws IOException {
    if (uploadId == null) {
      return;
    }
    String id = uploadId;
    uploadId = null;
    try {
      client.abortMultipartUpload(b -> b.bucket(bucket).key(s3Key).uploadId(id));
    } catch (SdkException e) {
      throw errors.translate("abort of multipart upload", key, e);
    }
  }

  private void ensureCapacity(int needed) {
    if (needed > buffer.length) {
      long grown = Math.max(needed, 2L * buffer.length);
      buffer = Arrays.copyOf(buffer, (int) Math.min(partSize, grown));
    }
  }

  private void ensureOpen() throws IOException {
    if (failure != null) {
      throw new IOException(
          "Object " + key + " cannot be written: an earlier upload failed", failure);
    }
    if (finished) {
      throw new IOException("Write after close() or abort() of the object writer for " + key);
    }
  }
}
