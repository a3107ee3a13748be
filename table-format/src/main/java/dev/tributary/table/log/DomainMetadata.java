package dev.tributary.table.log;

import java.util.Objects;

/**
 * The {@code domainMetadata} action: the configuration of one named metadata domain, such as {@code
 * delta.clustering} (the clustering columns of a liquid-clustered table) or {@code
 * delta.rowTracking} (the row id high-water mark). Tributary writes none, but keeps every domain of
 * a table in the checkpoints it writes, as the protocol requires of every writer.
 *
 * @param domain the domain's name
 * @param configuration the domain's configuration (usually JSON), verbatim
 * @param removed true for a tombstone that deletes the domain
 */
public record DomainMetadata(String domain, String configuration, boolean removed)
    implements Action {
  public DomainMetadata {
    Objects.requireNonNull(domain, "domain");
    Objects.requireNonNull(configuration, "configuration");
  }

  @Override
  public String kind() {
    return "domainMetadata";
  }
}
