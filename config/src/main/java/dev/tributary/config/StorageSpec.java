package dev.tributary.config;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@code storage.s3} section: explicit S3 settings. Absent parts fall back to the AWS SDK
 * defaults (region and credential chains).
 *
 * @param endpoint the S3 API endpoint, such as {@code http://localhost:9000}; empty = AWS
 * @param region the signing region
 * @param pathStyle whether to address buckets in the path instead of the host name (default false)
 * @param accessKey the access key id; present exactly when the secret key is
 * @param secretKey the secret access key; both keys are masked in {@link #toString}
 */
public record StorageSpec(
    Optional<String> endpoint,
    Optional<String> region,
    boolean pathStyle,
    Optional<String> accessKey,
    Optional<String> secretKey) {

  /** Checks the keys come together. */
  public StorageSpec {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(accessKey, "accessKey");
    Objects.requireNonNull(secretKey, "secretKey");
    if (accessKey.isPresent() != secretKey.isPresent()) {
      throw new IllegalArgumentException("access-key and secret-key must be given together");
    }
  }

  /**
   * Renders the settings with the keys masked (see {@link Secrets}): only whether they are set
   * shows.
   */
  @Override
  public String toString() {
    return "StorageSpec[endpoint="
        + endpoint
        + ", region="
        + region
        + ", pathStyle="
        + pathStyle
        + ", accessKey="
        + accessKey.map(s -> Secrets.MASK)
        + ", secretKey="
        + secretKey.map(s -> Secrets.MASK)
        + "]";
  }
}
