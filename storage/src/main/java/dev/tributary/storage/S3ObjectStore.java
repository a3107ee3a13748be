package dev.tributary.storage;

import dev.tributary.storage.retry.RetryPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link ObjectStore} on an S3 bucket (or S3-compatible server), rooted at an optional key
 * prefix: key {@code a/b} of the store {@code s3://bucket/p} is the S3 key {@code p/a/b}.
 *
 * <p>Atomicity comes from S3 itself: a PUT or a completed multipart upload is published whole.
 * {@link #putIfAbsent} is a PUT with {@code If-None-Match: *}, which S3 answers with 412 when the
 * key exists. That request is sent by a client without SDK retries, because a retry after a lost
 * response could meet our own object and report a false "lost the race"; it is retried here, under
 * the {@link RetryPolicy} {@value #PUT_IF_ABSENT_SITE}, only when S3 said for certain that nothing
 * was written (409 conflict, throttling). Every other request goes through the SDK's standard retry
 * strategy, bounded by {@link S3Settings#maxAttempts()}, with exponential backoff and jitter; its
 * retries are counted under {@value SdkRetryCounter#SITE}.
 */
final class S3ObjectStore implements ObjectStore {
  /** The retry site of {@link #putIfAbsent}. */
  static final String PUT_IF_ABSENT_SITE = "s3.put-if-absent";

  /** S3's own maximum and default page size of ListObjectsV2. */
  static final int DEFAULT_LIST_PAGE_SIZE = 1000;

  private final String bucket;
  private final String prefix;
  private final S3Settings settings;
  private final SdkHttpClient http;
  private final AwsCredentialsProvider credentials;
  private final S3Client client;
  private final S3Client conditionalClient;
  private final S3Errors errors;
  private final int listPageSize;
  private final RetryPolicy putIfAbsentRetry;

  /**
   * @param bucket the bucket name
   * @param prefix the key prefix of the root: empty, or ending with {@code /}
   */
  S3ObjectStore(String bucket, String prefix, S3Settings settings) {
    this(bucket, prefix, settings, DEFAULT_LIST_PAGE_SIZE);
  }

  /** Like the main constructor, with smaller listing pages so that tests exercise paging. */
  S3ObjectStore(String bucket, String prefix, S3Settings settings, int listPageSize) {
    this.listPageSize = listPageSize;
    this.bucket = bucket;
    this.prefix = prefix;
    this.settings = settings;
    this.http = ApacheHttpClient.builder().maxConnections(64).build();
    this.credentials = credentials(settings);
    this.client = newClient(settings.maxAttempts());
    this.conditionalClient = newClient(1);
    this.errors =
        new S3Errors(
            bucket, prefix, StorageErrors.endpointName(settings.endpoint(), settings.region()));
    this.putIfAbsentRetry = putIfAbsentRetry(settings);
  }

  /**
   * The retries of a conditional PUT: only when S3 said for certain that nothing was written (409,
   * 429, 503 SlowDown), at least twice, waiting 50-100 ms doubling up to 3.2-6.4 s. Anything else
   * (a 5xx, a lost response) may have created the object: it is never sent again, the caller reads
   * back instead.
   */
  static RetryPolicy putIfAbsentRetry(S3Settings settings) {
    return RetryPolicy.named(PUT_IF_ABSENT_SITE)
        .withMaxAttempts(Math.max(settings.maxAttempts(), 2))
        .withBackoff(Duration.ofMillis(100), Duration.ofMillis(6400))
        .withJitter(0.5)
        .retryingOn(e -> e instanceof S3Exception s3 && S3Errors.certainlyNotWritten(s3));
  }

  private S3Client newClient(int maxAttempts) {
    var builder =
        S3Client.builder()
            .httpClient(http)
            .region(Region.of(settings.region()))
            .forcePathStyle(settings.pathStyle())
            .credentialsProvider(credentials)
            .overrideConfiguration(
                config ->
                    config
                        .retryStrategy(
                            AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(maxAttempts)
                                .build())
                        .addExecutionInterceptor(new SdkRetryCounter()));
    if (settings.endpoint() != null) {
      builder.endpointOverride(settings.endpoint());
    }
    return builder.build();
  }

  private static AwsCredentialsProvider credentials(S3Settings settings) {
    return settings.hasStaticCredentials()
        ? StaticCredentialsProvider.create(
            AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()))
        : DefaultCredentialsProvider.builder().build();
  }

  @Override
  public String location() {
    return prefix.isEmpty()
        ? "s3://" + bucket
        : "s3://" + bucket + "/" + prefix.substring(0, prefix.length() - 1);
  }

  @Override
  public byte[] read(String key) throws IOException {
    String s3Key = s3Key(key);
    try {
      return client.getObjectAsBytes(b -> b.bucket(bucket).key(s3Key)).asByteArray();
    } catch (NoSuchKeyException e) {
      throw new ObjectNotFoundException(location(), key);
    } catch (SdkException e) {
      throw errors.translate("read", key, e);
    }
  }

  @Override
  public byte[] readRange(String key, long offset, int length) throws IOException {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(StorageErrors.negativeRange(key, offset, length));
    }
    if (length == 0) {
      if (stat(key).isEmpty()) {
        throw new ObjectNotFoundException(location(), key);
      }
      return new byte[0];
    }
    String s3Key = s3Key(key);
    String range = "bytes=" + offset + "-" + (offset + length - 1);
    try {
      ResponseBytes<GetObjectResponse> response =
          client.getObjectAsBytes(b -> b.bucket(bucket).key(s3Key).range(range));
      byte[] bytes = response.asByteArray();
      if (response.response().contentRange() != null) {
        return bytes;
      }
      // No Content-Range: the server ignored Range and sent the whole object; cut it here.
      int from = (int) Math.min(offset, bytes.length);
      return Arrays.copyOfRange(bytes, from, (int) Math.min((long) from + length, bytes.length));
    } catch (NoSuchKeyException e) {
      throw new ObjectNotFoundException(location(), key);
    } catch (S3Exception e) {
      if (e.statusCode() == 416) {
        return new byte[0]; // the range starts at or past the end of an existing object
      }
      throw errors.translate("ranged read", key, e);
    } catch (SdkException e) {
      throw errors.translate("ranged read", key, e);
    }
  }

  @Override
  public InputStream open(String key) throws IOException {
    String s3Key = s3Key(key);
    try {
      ResponseInputStream<GetObjectResponse> in =
          client.getObject(b -> b.bucket(bucket).key(s3Key));
      return in;
    } catch (NoSuchKeyException e) {
      throw new ObjectNotFoundException(location(), key);
    } catch (SdkException e) {
      throw errors.translate("read", key, e);
    }
  }

  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    String s3Key = s3Key(key);
    try {
      HeadObjectResponse head = client.headObject(b -> b.bucket(bucket).key(s3Key));
      return Optional.of(new ObjectInfo(key, head.contentLength(), head.lastModified()));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return Optional.empty();
      }
      throw errors.translate("stat", key, e);
    } catch (SdkException e) {
      throw errors.translate("stat", key, e);
    }
  }

  @Override
  public List<ObjectInfo> sample(String keyPrefix, int limit) throws IOException {
    ObjectKeys.checkLimit(limit);
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix + keyPrefix)
            .maxKeys(Math.min(limit, 1000))
            .build();
    List<ObjectInfo> out = new ArrayList<>();
    try {
      // One page: the first keys in order, at most limit of them (S3 caps a page at 1000).
      for (S3Object object : client.listObjectsV2(request).contents()) {
        if (out.size() < limit) {
          out.add(
              new ObjectInfo(
                  object.key().substring(prefix.length()), object.size(), object.lastModified()));
        }
      }
    } catch (SdkException e) {
      throw errors.translate("list", keyPrefix + "*", e);
    }
    out.sort((a, b) -> ObjectKeys.ORDER.compare(a.key(), b.key()));
    return out;
  }

  @Override
  public List<ObjectInfo> list(String keyPrefix, String startAfter) throws IOException {
    ListObjectsV2Request.Builder request =
        ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix + keyPrefix)
            .maxKeys(listPageSize);
    if (startAfter != null) {
      request.startAfter(prefix + startAfter);
    }
    List<ObjectInfo> out = new ArrayList<>();
    try {
      for (S3Object object : client.listObjectsV2Paginator(request.build()).contents()) {
        String key = object.key().substring(prefix.length());
        // Some servers ignore StartAfter or sort differently; enforce the contract here.
        if (startAfter == null || ObjectKeys.ORDER.compare(key, startAfter) > 0) {
          out.add(new ObjectInfo(key, object.size(), object.lastModified()));
        }
      }
    } catch (SdkException e) {
      throw errors.translate("list", keyPrefix + "*", e);
    }
    out.sort((a, b) -> ObjectKeys.ORDER.compare(a.key(), b.key()));
    return out;
  }

  @Override
  public void put(String key, byte[] data) throws IOException {
    String s3Key = s3Key(key);
    try {
      client.putObject(b -> b.bucket(bucket).key(s3Key), RequestBody.fromBytes(data));
    } catch (SdkException e) {
      throw errors.translate("write", key, e);
    }
  }

  @Override
  public boolean putIfAbsent(String key, byte[] data) throws IOException {
    String s3Key = s3Key(key);
    try {
      return putIfAbsentRetry.call(
          attempt -> {
            try {
              conditionalClient.putObject(
                  b -> b.bucket(bucket).key(s3Key).ifNoneMatch("*"), RequestBody.fromBytes(data));
              return true;
            } catch (S3Exception e) {
              if (e.statusCode() == 412) {
                return false;
              }
              throw e;
            }
          });
    } catch (S3Exception e) {
      if (S3Errors.certainlyNotWritten(e)) {
        throw errors.translate("put-if-absent", key, e); // the retries ran out
      }
      throw errors.putIfAbsentFailure(key, e);
    } catch (SdkException e) {
      throw errors.putIfAbsentFailure(key, e);
    }
  }

  @Override
  public ObjectWriter create(String key) {
    return new S3ObjectWriter(
        client,
        bucket,
        s3Key(key),
        key,
        (int) Math.min(settings.multipartPartSize(), Integer.MAX_VALUE - 64),
        errors);
  }

  @Override
  public void delete(String key) throws IOException {
    String s3Key = s3Key(key);
    try {
      client.deleteObject(b -> b.bucket(bucket).key(s3Key));
    } catch (NoSuchKeyException e) {
      // Deleting a missing key is not an error.
    } catch (SdkException e) {
      throw errors.translate("delete", key, e);
    }
  }

  @Override
  public void close() {
    client.close();
    conditionalClient.close();
    http.close();
    if (credentials instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // Releasing a credential refresher cannot fail in a way the caller could act on.
      }
    }
  }

  @Override
  public String toString() {
    return "S3ObjectStore[" + location() + ", " + settings + "]";
  }

  private String s3Key(String key) {
    return prefix + ObjectKeys.check(key);
  }
}
