package dev.tributary.config;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
 * {@code validate} plan, progress records and metric tags all pass through it, because any of them
 * may echo a value (an error names the value it refuses; a client library's exception names its
 * endpoint).
 *
 * <p>Secrets are the values of the keys that hold credentials ({@link #isSecretPath}: a storage
 * section's {@code access-key} and {@code secret-key}, a schema registry's {@code basic-auth} and
 * {@code bearer-token}, the Kafka consumer properties whose names look secret), and the values of
 * the {@code ${NAME}} references whose variable name looks secret ({@link #isSecretVariable}),
 * whatever their key. Every other value, a substituted one included, is information an operator
 * needs to read (the bootstrap servers a client could not reach, the topic that does not exist, the
 * path that cannot be written, a metric's topic tag) and is shown as it is. Values shorter than
 * {@link #MIN_LENGTH} characters are not masked: they cannot be credentials, and masking {@code 1}
 * or {@code on} in every text would garble numbers and words. Instances never print their values.
 */
public final class Secrets {

  /** What a masked value is printed as. */
  public static final String MASK = "******";

  /** The shortest value that is masked. */
  public static final int MIN_LENGTH = 4;

  /** No secrets: {@link #mask} returns its text unchanged. */
  public static final Secrets NONE = new Secrets(List.of(), Map.of());

  /**
   * Words a secret variable name contains anywhere ({@code DBPASSWORD}, {@code SECRET_HOST}, {@code
   * AWS_SESSION_TOKEN}, {@code GCP_CREDENTIALS}).
   */
  private static final List<String> SECRET_PARTS =
      List.of("password", "passwd", "passphrase", "secret", "token", "credential", "jaas");

  /**
   * Endings of a word of a secret variable name: {@code S3_ACCESS_KEY}, {@code APIKEY}, {@code
   * DB_PASS}, {@code BASIC_AUTH}. Whole words only, so that {@code KEYSPACE} or {@code
   * SSL_KEYSTORE_LOCATION} stay readable.
   */
  private static final List<String> SECRET_WORD_ENDINGS =
      List.of("key", "keys", "pass", "pwd", "auth", "creds");

  // Longest first: a secret that contains another is replaced whole, not around its inner part.
  private final List<String> values;
  // Variable name -> its value as it may be shown (MASK for a secret), in the order of first use.
  private final Map<String, String> references;

  private Secrets(Collection<String> values, Map<String, String> references) {
    this.values =
        values.stream()
            .filter(v -> v != null && v.strip().length() >= MIN_LENGTH)
            .distinct()
            .sorted(
                Comparator.comparingInt(String::length)
                    .reversed()
                    .thenComparing(Comparator.naturalOrder()))
            .toList();
    this.references = Collections.unmodifiableMap(new LinkedHashMap<>(references));
  }

  /**
   * Returns the secrets among {@code values} (nulls and values shorter than {@link #MIN_LENGTH} are
   * dropped).
   */
  public static Secrets of(Collection<String> values) {
    return new Secrets(values, Map.of());
  }

  /**
   * Returns the secrets among {@code values}, with the {@code ${NAME}} references a declaration
   * made: variable name to its value as it may be shown ({@link #MASK} for a secret one), in the
   * order of first use.
   */
  public static Secrets of(Collection<String> values, Map<String, String> references) {
    return new Secrets(values, references);
  }

  /** Returns the secrets of both (and the references of both, this one's first). */
  public Secrets and(Secrets other) {
    Map<String, String> both = new LinkedHashMap<>(references);
    other.references.forEach(both::putIfAbsent);
    return new Secrets(Stream.concat(values.stream(), other.values.stream()).toList(), both);
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
   * The {@code ${NAME}} references of the declaration, in the order of first use: variable name to
   * the value it put in (or its default), or {@link #MASK} when that value is a secret (a secret
   * variable name, or a reference under a secret key). {@code validate} shows them so that an
   * operator sees what the environment made of the file.
   */
  public Map<String, String> references() {
    return references;
  }

  /**
   * Returns whether an environment variable's name says it holds a credential, so that the value of
   * a {@code ${NAME}} reference to it is masked wherever it is used. Case-insensitive: the name
   * contains {@code password}, {@code passwd}, {@code passphrase}, {@code secret}, {@code token},
   * {@code credential} or {@code jaas} anywhere, or one of its words (the parts between {@code _}
   * and {@code .}) ends with {@code key}, {@code keys}, {@code pass}, {@code pwd}, {@code auth} or
   * {@code creds}. So {@code S3_ACCESS_KEY}, {@code API_KEY}, {@code apiKey}, {@code DB_PASS} and
   * {@code REGISTRY_BASIC_AUTH} are secret; {@code KAFKA_BOOTSTRAP}, {@code ORDERS_TOPIC}, {@code
   * KEYSPACE} and {@code SSL_KEYSTORE_LOCATION} are not. The rule errs towards masking: a name such
   * as {@code MONKEY_TOPIC} is masked too.
   */
  public static boolean isSecretVariable(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (SECRET_PARTS.stream().anyMatch(lower::contains)) {
      return true;
    }
    for (String word : lower.split("[_.]+")) {
      if (SECRET_WORD_ENDINGS.stream().anyMatch(word::endsWith)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns whether a pass-through Kafka consumer property holds a secret: its name contains {@code
   * password}, {@code passphrase}, {@code secret}, {@code token}, {@code credential}, {@code
   * user.info} or {@code sasl.jaas.config}, or it ends with {@code .key} ({@code ssl.keystore.key},
   * a private key), case-insensitive. A key store's location and type are not secrets.
   */
  public static boolean isSecretProperty(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.contains("password")
        || lower.contains("passphrase")
        || lower.contains("secret")
        || lower.contains("token")
        || lower.contains("credential")
        || lower.contains("user.info")
        || lower.contains("sasl.jaas.config")
        || lower.endsWith(".key");
  }

  /**
   * Returns whether the value at a key path of a pipeline file is secret: a storage section's
   * {@code access-key} and {@code secret-key} (its {@code endpoint}, {@code region} and {@code
   * path-style} are not; a single value in place of the section or of its {@code s3} is), a
   * registry's {@code basic-auth} and {@code bearer-token}, a JDBC sink's {@code password}, the
   * properties of a JDBC or Kafka sink and the Kafka consumer properties {@link #isSecretProperty}
   * names.
   */
  public static boolean isSecretPath(String keyPath) {
    String properties = "source.kafka.properties.";
    // The storage sections themselves (storage, join[0].delta.storage, their s3): a single value
    // written where their mapping belongs may be credentials put at the wrong level.
    return keyPath.equals("storage")
        || keyPath.endsWith(".storage")
        || keyPath.endsWith("storage.s3")
        || keyPath.endsWith("s3.access-key")
        || keyPath.endsWith("s3.secret-key")
        || keyPath.endsWith(".registry.basic-auth")
        || keyPath.endsWith(".registry.bearer-token")
        || keyPath.endsWith("jdbc.password")
        || (keyPath.startsWith(properties)
            && isSecretProperty(keyPath.substring(properties.length())))
        || secretSinkProperty(keyPath);
  }

  /**
   * A pass-through property of a JDBC or Kafka sink ({@code sink.jdbc.properties.password}, {@code
   * sinks[1].kafka.properties.sasl.jaas.config}) whose name {@link #isSecretProperty} names.
   */
  private static boolean secretSinkProperty(String keyPath) {
    for (String section : List.of("jdbc.properties.", "kafka.properties.")) {
      int at = keyPath.indexOf(section);
      if (keyPath.startsWith("sink") && at >= 0) {
        return isSecretProperty(keyPath.substring(at + section.length()));
      }
    }
    return false;
  }

  /** Renders properties sorted by name with secret values replaced by {@link #MASK}. */
  static String maskProperties(Map<String, String> properties) {
    Map<String, String> shown = new TreeMap<>();
    properties.forEach((k, v) -> shown.put(k, isSecretProperty(k) ? MASK : v));
    return shown.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secrets other
        && new TreeSet<>(values).equals(new TreeSet<>(other.values))
        && references.equals(other.references);
  }

  @Override
  public int hashCode() {
    return Objects.hash(values.stream().collect(Collectors.toCollection(TreeSet::new)), references);
  }

  /** Never shows a value: only how many there are. */
  @Override
  public String toString() {
    return "Secrets[" + values.size() + " masked value" + (values.size() == 1 ? "" : "s") + "]";
  }
}
