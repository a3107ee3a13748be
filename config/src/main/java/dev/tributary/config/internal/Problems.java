package dev.tributary.config.internal;

import dev.tributary.config.Secrets;
import dev.tributary.config.ValidationError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.error.Mark;

/**
 * The errors found in one file, and where each key and value of the file is, so that checks made
 * after conversion (on the model, not the node tree) still point at the exact key or value.
 */
final class Problems {

  private final String file;
  private final List<ValidationError> errors = new ArrayList<>();
  private final Map<String, Mark> keyMarks = new HashMap<>();
  private final Map<String, Mark> valueMarks = new HashMap<>();
  private final Set<String> secretValues = new LinkedHashSet<>();
  // Variable name -> the value its first reference put in; names whose value is a secret.
  private final Map<String, String> references = new LinkedHashMap<>();
  private final Set<String> secretReferences = new HashSet<>();

  Problems(String file) {
    this.file = file;
  }

  /**
   * Remembers where the key and the value of {@code path} are; the key mark may be null (list
   * items).
   */
  void locate(String path, Mark key, Mark value) {
    if (key != null) {
      keyMarks.putIfAbsent(path, key);
    }
    valueMarks.putIfAbsent(path, value);
  }

  /**
   * Remembers a value that no message may show (see {@link Secrets}); messages recorded before or
   * after are masked alike, since masking happens when the errors are handed out.
   */
  void secret(String value) {
    secretValues.add(value);
  }

  /**
   * Remembers a {@code ${NAME}} reference and the value it put in; the value is a secret when the
   * variable's name looks secret ({@link Secrets#isSecretVariable}).
   */
  void referenced(String name, String value) {
    references.putIfAbsent(name, value);
    if (Secrets.isSecretVariable(name)) {
      secretReference(name, value);
    }
  }

  /** Remembers that a reference's value is a secret (it was used under a secret key). */
  void secretReference(String name, String value) {
    secretReferences.add(name);
    secret(value);
  }

  /** The secret values and the references remembered so far. */
  Secrets secrets() {
    Map<String, String> shown = new LinkedHashMap<>();
    references.forEach(
        (name, value) -> shown.put(name, secretReferences.contains(name) ? Secrets.MASK : value));
    return Secrets.of(secretValues, shown);
  }

  /** Records an error at a mark (null = no position). */
  void add(Mark mark, String path, String message) {
    int line = mark == null ? 0 : mark.getLine() + 1;
    int column = mark == null ? 0 : mark.getColumn() + 1;
    errors.add(new ValidationError(file, line, column, path, message));
  }

  /** Records an error at the value of {@code path}, or of its nearest located ancestor. */
  void atValue(String path, String message) {
    add(find(valueMarks, path), path, message);
  }

  /** Records an error at the key of {@code path}, or of its nearest located ancestor. */
  void atKey(String path, String message) {
    add(find(keyMarks, path), path, message);
  }

  /** Returns whether {@code path} was declared in the file. */
  boolean declared(String path) {
    return valueMarks.containsKey(path);
  }

  /** Returns whether an error was recorded at {@code path} or below it. */
  boolean brokenAt(String path) {
    return errors.stream()
        .anyMatch(
            e ->
                e.keyPath().equals(path)
                    || e.keyPath().startsWith(path + ".")
                    || e.keyPath().startsWith(path + "["));
  }

  boolean isEmpty() {
    return errors.isEmpty();
  }

  /** The errors, every secret value masked. */
  List<ValidationError> errors() {
    Secrets secrets = secrets();
    return errors.stream()
        .map(
            e ->
                new ValidationError(
                    e.file(), e.line(), e.column(), e.keyPath(), secrets.mask(e.message())))
        .toList();
  }

  private Mark find(Map<String, Mark> marks, String path) {
    String current = path;
    while (true) {
      Mark mark = marks.get(current);
      if (mark == null && marks != valueMarks) {
        mark = valueMarks.get(current);
      }
      if (mark != null || current.isEmpty()) {
        return mark != null ? mark : valueMarks.get("");
      }
      current = parent(current);
    }
  }

  static String parent(String path) {
    int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
    return cut < 0 ? "" : path.substring(0, cut);
  }
}
