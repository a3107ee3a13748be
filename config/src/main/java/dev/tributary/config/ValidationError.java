package dev.tributary.config;

import java.util.Objects;

/**
 * One problem found in a pipeline file, located at the exact key or value it concerns.
 *
 * @param file the file name as given to the parser (or the source name of a string)
 * @param line 1-based line, or 0 when the problem has no position (an unreadable file)
 * @param column 1-based column, or 0 when the problem has no position
 * @param keyPath the dotted key path, with list indexes: {@code sink.delta.target-file-size},
 *     {@code deduplicate.keys[1]}; empty for problems of the file as a whole
 * @param message what is wrong and how to fix it
 */
public record ValidationError(String file, int line, int column, String keyPath, String message) {

  /** Checks that no part is null. */
  public ValidationError {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(keyPath, "keyPath");
    Objects.requireNonNull(message, "message");
  }

  /**
   * Renders the error as one paragraph: {@code orders.yaml:12:5: sink.delta.target-file-size:
   * cannot parse '12XB' as a size; write it like 128MB or 1GB}.
   */
  public String render() {
    StringBuilder text = new StringBuilder(file);
    if (line > 0) {
      text.append(':').append(line).append(':').append(column);
    }
    text.append(": ");
    if (!keyPath.isEmpty()) {
      text.append(keyPath).append(": ");
    }
    return text.append(message).toString();
  }

  @Override
  public String toString() {
    return render();
  }
}
