package dev.tributary.storage;

import dev.tributary.storage.retry.RetryCounters;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Counts the AWS SDK's own retries of plain S3 requests (reads, lists, data-file PUTs, deletes)
 * under the retry site {@value #SITE}. Those retries are the SDK's standard strategy, bounded by
 * {@link S3Settings#maxAttempts()}; no {@link dev.tributary.storage.retry.RetryPolicy} sees them,
 * so this interceptor tells {@link RetryCounters}: every transmission of a request after its first
 * is a retry.
 */
final class SdkRetryCounter implements ExecutionInterceptor {
  /** The retry site of the SDK's retries. */
  static final String SITE = "s3.request";

  private static final ExecutionAttribute<Boolean> SENT =
      new ExecutionAttribute<>("tributary.retry.sent");

  SdkRetryCounter() {
    RetryCounters.declare(SITE);
  }

  @Override
  public void beforeTransmission(
      Context.BeforeTransmission context, ExecutionAttributes attributes) {
    if (attributes.getAttribute(SENT) != null) {
      RetryCounters.retried(SITE);
    } else {
      attributes.putAttribute(SENT, Boolean.TRUE);
    }
  }
}
