package dev.tributary.config;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when a pipeline file cannot be read, is not valid YAML or does not describe a valid
 * pipeline. It holds every problem found, not only the first, sorted by position; its message is
 * one paragraph per error, ready to print to a user.
 */
public class PipelineValidationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient List<ValidationError> errors;

  /**
   * Creates the exception.
   *
   * @param errors the problems, at least one; they are sorted by file, line and column
   */
  public PipelineValidationException(List<ValidationError> errors) {
    super(render(errors));
    this.errors = sorted(errors);
  }

  /** Returns the problems, sorted by file, line and column. */
  public List<ValidationError> errors() {
    return errors;
  }

  private static List<ValidationError> sorted(List<ValidationError> errors) {
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a validation exception needs at least one error");
    }
    return errors.stream()
        .sorted(
            Comparator.comparing(ValidationError::file)
                .thenComparingInt(ValidationError::line)
                .thenComparingInt(ValidationError::column))
        .toList();
  }

  private static String render(List<ValidationError> errors) {
    return sorted(errors).stream().map(ValidationError::render).collect(Collectors.joining("\n"));
  }
}
