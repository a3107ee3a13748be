package dev.tributary.config.internal;

import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces {@code ${NAME}} and {@code ${NAME:-default}} in scalar values. {@code :-} uses the
 * default when the variable is unset or empty, as POSIX shells do; {@code $${...}} stands for a
 * literal {@code ${...}}. Replacement is not recursive: a value or default containing {@code
 * ${...}} is kept as is.
 */
final class EnvSubstitution {

  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\$\\{|\\$\\{([A-Za-z_][A-Za-z0-9_.]*)(?::-([^}]*))?}");

  private EnvSubstitution() {}

  /**
   * Returns {@code text} with every reference replaced.
   *
   * @throws IllegalArgumentException naming the variable when one is unset and has no default, or
   *     describing a malformed reference
   */
  static String apply(String text, Function<String, String> env) {
    return apply(text, env, (name, value) -> {});
  }

  /**
   * Like {@link #apply(String, Function)}, and hands every reference's variable name and the value
   * it put in (the variable's value or the default) to {@code substituted}, so that a secret one
   * can be masked in every message and {@code validate} can show the others.
   */
  static String apply(
      String text, Function<String, String> env, BiConsumer<String, String> substituted) {
    if (!text.contains("${")) {
      return text;
    }
    if (hasUnmatchedReference(text)) {
      throw new IllegalArgumentException(Messages.malformedReference(text));
    }
    Matcher m = REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    int last = 0;
    while (m.find()) {
      out.append(text, last, m.start());
      last = m.end();
      if (m.group().equals("$${")) {
        out.append("${");
        continue;
      }
      String value = env.apply(m.group(1));
      if (value == null || (value.isEmpty() && m.group(2) != null)) {
        if (m.group(2) == null) {
          throw new IllegalArgumentException(Messages.unsetVariable(m.group(1)));
        }
        value = m.group(2);
      }
      substituted.accept(m.group(1), value);
      out.append(value);
    }
    out.append(text, last, text.length());
    return out.toString();
  }

  /** A {@code ${} that no reference consumed: unterminated or with an invalid name. */
  private static boolean hasUnmatchedReference(String text) {
    String withoutEscapes = text.replace("$${", "");
    String withoutReferences = REFERENCE.matcher(withoutEscapes).replaceAll("");
    return withoutReferences.contains("${");
  }
}
