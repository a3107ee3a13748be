package dev.tributary.config;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The secret values of a pipeline declaration, and the one function that keeps them out of every
 * text shown to a user: {@link #mask(String)}. Validation messages, log lines, REST answers, the
 * {@code validate} plan and progress records all pass through it, because any of them may echo a
 * value (an error names the value it refuses; a client library's exception names its endpoint).
 *
 * <p>Secrets are: every value under {@code storage} (endpoint, region and keys), a schema
 * registry's {@code basic-auth} and {@code bearer-token}, every Kafka consumer property whose name
 * looks secret ({@link #isSecretProperty}), and every value a {@code ${NAME}} reference
 * substituted, whatever its key, since the file cannot tell which environment variables hold
 * credentials. Values shorter than {@link #MIN_LENGTH} characters are not masked: they cannot be
 * credentials, and masking {@code 1} or {@code on} in every text would garble numbers and words.
 * Instances never print their values.
 */
public final class Secrets {

  /** What a masked value is printed as. */
  public static final String MASK = "******";

  /** The shortest value that is masked. */
  public static final int MIN_LENGTH = 4;

  /** No secrets: {@link #mask} returns its text unchanged. */
  public static final Secrets NONE = new Secrets(List.of());

  // Longest first: a secret that contains another is replaced whole, not around its inner part.
  private final List<String> values;

  private Secrets(Collection<String> values) {
    this.values =
        values.stream()
            .filter(v -> v != null && v.strip().length() >= MIN_LENGTH)
            .distinct()
            .sorted(
                Comparator.comparingInt(String::length)
                    .reversed()
                    .thenComparing(Comparator.naturalOrder()))
            .toList();
  }

  /**
   * Returns the secrets among {@code values} (nulls and values shorter than {@link #MIN_LENGTH} are
   * dropped).
   */
  public static Secrets of(Collection<String> values) {
    return new Secrets(values);
  }

  /** Returns the secrets of both. */
  public Secrets and(Secrets other) {
    return new Secrets(Stream.concat(values.stream(), other.values.stream()).toList());
  }

  /**
   * Returns {@code text} with every occurrence of every secret replaced by {@link #MASK}; null
   * stays null. This is the only masking function of the project: whatever is shown to a user and
   * may contain a declared value goes through it.
   */
  public String mask(String text) {
    if (text == null || values.isEmpty()) {
      return text;
    }
    String masked = text;
    for (String value : values) {
      masked = masked.replace(value, MASK);
    }
    return masked;
  }

  /** Returns whether there is nothing to mask. */
  public boolean isEmpty() {
    return values.isEmpty();
  }

  /**
   * Returns whether a pass-through Kafka consumer property holds a secret: its name contains {@code
   * password}, {@code secret}, {@code token} or {@code sasl.jaas.config}, or it is an {@code ssl.*}
   * property whose name contains {@code key} (case-insensitive).
   */
  public static boolean isSecretProperty(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.contains("password")
        || lower.contains("secret")
        || lower.contains("token")
        || lower.contains("sasl.jaas.config")
        || (lower.startsWith("ssl.") && lower.contains("key"));
  }

  /**
   * Returns whether the value at a key path of a pipeline file is secret: everything under {@code
   * storage}, a registry's {@code basic-auth} and {@code bearer-token}, and the Kafka consumer
   * properties {@link #isSecretProperty} names.
   */
  public static boolean isSecretPath(String keyPath) {
    String properties = "source.kafka.properties.";
    // The top-level section, and a table's own storage section (join[0].delta.storage, ...).
    return keyPath.equals("storage")
        || keyPath.startsWith("storage.")
        || keyPath.endsWith(".storage")
        || keyPath.contains(".storage.")
        || keyPath.endsWith(".registry.basic-auth")
        || keyPath.endsWith(".registry.bearer-token")
        || (keyPath.startsWith(properties)
            && isSecretProperty(keyPath.substring(properties.length())));
  }

  /** Renders properties sorted by name with secret values replaced by {@link #MASK}. */
  static String maskProperties(Map<String, String> properties) {
    Map<String, String> shown = new TreeMap<>();
    properties.forEach((k, v) -> shown.put(k, isSecretProperty(k) ? MASK : v));
    return shown.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secrets other && new TreeSet<>(values).equals(new TreeSet<>(other.values));
  }

  @Override
  public int hashCode() {
    return Objects.hash(values.stream().collect(Collectors.toCollection(TreeSet::new)));
  }

  /** Never shows a value: only how many there are. */
  @Override
  public String toString() {
    return "Secrets[" + values.size() + " masked value" + (values.size() == 1 ? "" : "s") + "]";
  }
}
