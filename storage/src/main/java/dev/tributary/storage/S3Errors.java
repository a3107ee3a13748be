package dev.tributary.storage;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.Set;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Turns AWS SDK exceptions into {@link IOException}s whose messages name the bucket, the key and
 * the endpoint and say how to fix the problem. The SDK's own messages (kept as the cause) never
 * contain the secret key.
 */
final class S3Errors {
  private static final Set<String> CREDENTIAL_CODES =
      Set.of(
          "AccessDenied",
          "InvalidAccessKeyId",
          "SignatureDoesNotMatch",
          "InvalidToken",
          "ExpiredToken",
          "AllAccessDisabled");

  private final String bucket;
  private final String prefix;
  private final String endpoint;

  S3Errors(String bucket, String prefix, String endpoint) {
    this.bucket = bucket;
    this.prefix = prefix;
    this.endpoint = endpoint;
  }

  /** An error of any operation but put-if-absent. */
  IOException translate(String operation, String key, SdkException e) {
    String url = url(key);
    if (e instanceof S3Exception s3) {
      String code = code(s3);
      if ("NoSuchBucket".equals(code)) {
        return new IOException(StorageErrors.noSuchBucket(bucket, endpoint), e);
      }
      if (s3.statusCode() == 403 || CREDENTIAL_CODES.contains(code)) {
        return new IOException(
            StorageErrors.accessDenied(url, code == null ? "HTTP 403" : code, endpoint), e);
      }
      return new IOException(
          StorageErrors.s3Failed(
              operation,
              url,
              endpoint,
              "HTTP " + s3.statusCode() + " " + code + ": " + message(s3)),
          e);
    }
    String detail = String.valueOf(e.getMessage());
    if (detail.contains("Unable to load credentials")) {
      return new IOException(StorageErrors.noCredentials(url, firstLine(detail)), e);
    }
    if (connectionRefused(e)) {
      return new IOException(StorageErrors.unreachable(url, endpoint, rootCause(e).toString()), e);
    }
    return new IOException(StorageErrors.s3Failed(operation, url, endpoint, firstLine(detail)), e);
  }

  /**
   * An error of a conditional PUT. A rejection by S3 (4xx) or a failure to connect means nothing
   * was written; anything else (5xx, timeouts, a broken connection) leaves the outcome unknown.
   */
  IOException putIfAbsentFailure(String key, SdkException e) {
    boolean rejected =
        e instanceof S3Exception s3 && s3.statusCode() >= 400 && s3.statusCode() < 500;
    boolean noCredentials =
        !(e instanceof S3Exception)
            && String.valueOf(e.getMessage()).contains("Unable to load credentials");
    if (rejected || noCredentials || connectionRefused(e)) {
      return translate("put-if-absent", key, e);
    }
    String detail =
        e instanceof S3Exception s3
            ? "HTTP " + s3.statusCode() + " " + code(s3) + ": " + message(s3)
            : firstLine(String.valueOf(e.getMessage()));
    return new IOException(StorageErrors.stateUnknown(url(key), endpoint, detail), e);
  }

  /** Whether S3 said for certain that a write did not happen and may simply be sent again. */
  static boolean certainlyNotWritten(S3Exception e) {
    // 409: ConditionalRequestConflict (a concurrent conditional write on the key) or
    // OperationAborted; 429 and 503 SlowDown: throttled before anything was written.
    return e.statusCode() == 409
        || e.statusCode() == 429
        || e.statusCode() == 503 && "SlowDown".equals(code(e));
  }

  private String url(String key) {
    return "s3://" + bucket + "/" + prefix + key;
  }

  private static String code(S3Exception e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  private static String message(S3Exception e) {
    return e.awsErrorDetails() == null || e.awsErrorDetails().errorMessage() == null
        ? firstLine(String.valueOf(e.getMessage()))
        : e.awsErrorDetails().errorMessage();
  }

  private static boolean connectionRefused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof UnknownHostException
          || t instanceof NoRouteToHostException) {
        return true;
      }
    }
    return false;
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static String firstLine(String text) {
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }
}
