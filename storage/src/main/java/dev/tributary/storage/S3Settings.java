package dev.tributary.storage;

import java.net.URI;
import java.util.Objects;

/**
 * How to reach S3 or an S3-compatible server. Immutable: derive variants with the {@code with...}
 * methods, starting from {@link #defaults()}.
 *
 * <p>{@link #toString()} never shows the secret key, so settings may be logged.
 *
 * @param endpoint the S3 API endpoint, or null for AWS's regional endpoint
 * @param region the signing region (AWS default {@code us-east-1})
 * @param pathStyle whether buckets are addressed as {@code endpoint/bucket} rather than as {@code
 *     bucket.endpoint}; most self-hosted servers need it
 * @param accessKey the access key id, or null (together with {@code secretKey}) to use the AWS
 *     default credential chain (environment, profile, instance role)
 * @param secretKey the secret access key; null exactly when {@code accessKey} is null
 * @param maxAttempts attempts per request, including the first (at least 1); transient errors
 *     (throttling, 5xx, I/O) are retried with exponential backoff up to this bound
 * @param multipartPartSize bytes per part of a streaming write, at least {@link #MIN_PART_SIZE}
 *     (S3's minimum); objects smaller than one part are written with a single request
 */
public record S3Settings(
    URI endpoint,
    String region,
    boolean pathStyle,
    String accessKey,
    String secretKey,
    int maxAttempts,
    long multipartPartSize) {

  /** S3's smallest allowed size of every multipart-upload part but the last: 5 MiB. */
  public static final long MIN_PART_SIZE = 5L * 1024 * 1024;

  /** The default part size of streaming writes: 8 MiB. */
  public static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;

  /** The default region, {@code us-east-1}. */
  public static final String DEFAULT_REGION = "us-east-1";

  /** The default number of attempts per request, 5. */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  /** Validates the settings; messages name the offending value (never the secret). */
  public S3Settings {
    Objects.requireNonNull(region, "region");
    if (region.isBlank()) {
      throw new IllegalArgumentException(
          "S3 region must not be blank (e.g. " + DEFAULT_REGION + ")");
    }
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException(
          "S3 access key and secret key must be given together (or neither, to use the AWS"
              + " default credential chain)");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("S3 maxAttempts must be at least 1, got " + maxAttempts);
    }
    if (multipartPartSize < MIN_PART_SIZE) {
      throw new IllegalArgumentException(
          "S3 multipartPartSize must be at least "
              + MIN_PART_SIZE
              + " bytes (5 MiB, S3's minimum"
              + " part size), got "
              + multipartPartSize);
    }
    if (endpoint != null && (endpoint.getScheme() == null || endpoint.getHost() == null)) {
      throw new IllegalArgumentException(
          "S3 endpoint '" + endpoint + "' must be an absolute URL such as http://127.0.0.1:9000");
    }
  }

  /**
   * AWS's endpoint for {@code us-east-1}, virtual-hosted addressing, the default credential chain,
   * {@value #DEFAULT_MAX_ATTEMPTS} attempts and 8 MiB parts.
   */
  public static S3Settings defaults() {
    return new S3Settings(
        null, DEFAULT_REGION, false, null, null, DEFAULT_MAX_ATTEMPTS, DEFAULT_PART_SIZE);
  }

  /** These settings with another endpoint (null for AWS's own). */
  public S3Settings withEndpoint(URI endpoint) {
    return new S3Settings(
        endpoint, region, pathStyle, accessKey, secretKey, maxAttempts, multipartPartSize);
  }

  /** These settings with another signing region. */
  public S3Settings withRegion(String region) {
    return new S3Settings(
        endpoint, region, pathStyle, accessKey, secretKey, maxAttempts, multipartPartSize);
  }

  /** These settings with path-style bucket addressing ({@code endpoint/bucket/key}). */
  public S3Settings withPathStyleAccess() {
    return new S3Settings(
        endpoint, region, true, accessKey, secretKey, maxAttempts, multipartPartSize);
  }

  /** These settings with virtual-hosted bucket addressing ({@code bucket.endpoint/key}). */
  public S3Settings withVirtualHostedAccess() {
    return new S3Settings(
        endpoint, region, false, accessKey, secretKey, maxAttempts, multipartPartSize);
  }

  /** These settings with static credentials; both must be non-null. */
  public S3Settings withCredentials(String accessKey, String secretKey) {
    Objects.requireNonNull(accessKey, "accessKey");
    Objects.requireNonNull(secretKey, "secretKey");
    return new S3Settings(
        endpoint, region, pathStyle, accessKey, secretKey, maxAttempts, multipartPartSize);
  }

  /** These settings using the AWS default credential chain instead of static credentials. */
  public S3Settings withDefaultCredentials() {
    return new S3Settings(endpoint, region, pathStyle, null, null, maxAttempts, multipartPartSize);
  }

  /** These settings with another bound on attempts per request. */
  public S3Settings withMaxAttempts(int maxAttempts) {
    return new S3Settings(
        endpoint, region, pathStyle, accessKey, secretKey, maxAttempts, multipartPartSize);
  }

  /** These settings with another multipart part size in bytes. */
  public S3Settings withMultipartPartSize(long multipartPartSize) {
    return new S3Settings(
        endpoint, region, pathStyle, accessKey, secretKey, maxAttempts, multipartPartSize);
  }

  /** Whether static credentials are configured (otherwise the AWS default chain is used). */
  public boolean hasStaticCredentials() {
    return accessKey != null;
  }

  /** Shows every field but the secret key, which appears as {@code ****} when set. */
  @Override
  public String toString() {
    return "S3Settings[endpoint="
        + (endpoint == null ? "AWS default" : endpoint)
        + ", region="
        + region
        + ", pathStyle="
        + pathStyle
        + ", accessKey="
        + accessKey
        + ", secretKey="
        + (secretKey == null ? "null" : "****")
        + ", maxAttempts="
        + maxAttempts
        + ", multipartPartSize="
        + multipartPartSize
        + "]";
  }
}
