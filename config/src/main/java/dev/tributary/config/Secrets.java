package dev.tributary.config;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Decides which configuration values are secrets, so that no {@code toString}, log line or error
 * message of this module prints them.
 */
public final class Secrets {

  /** What a masked value is printed as. */
  public static final String MASK = "******";

  private Secrets() {
  }

  /**
   * Returns whether a pass-through Kafka consumer property holds a secret: its name contains
   * {@code password}, {@code secret} or {@code sasl.jaas.config} (case-insensitive).
   */
  public static boolean isSecretProperty(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.contains("password") || lower.contains("secret") || lower.contains("sasl.jaas.config");
  }

  /** Renders properties sorted by name with secret values replaced by {@link #MASK}. */
  static String maskProperties(Map<String, String> properties) {
    Map<String, String> shown = new TreeMap<>();
    properties.forEach((k, v) -> shown.put(k, isSecretProperty(k) ? MASK : v));
    return shown.toString();
  }
}
