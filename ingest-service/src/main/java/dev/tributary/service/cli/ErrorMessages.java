package dev.tributary.service.cli;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Renders a failure as one readable paragraph: the message of each distinct cause, outermost first.
 */
final class ErrorMessages {
  private ErrorMessages() {}

  static String paragraph(Throwable e) {
    Set<String> parts = new LinkedHashSet<>();
    for (Throwable t = e; t != null && parts.size() < 5; t = t.getCause()) {
      String message = t.getMessage();
      parts.add(
          message == null || message.isBlank() ? t.getClass().getSimpleName() : message.strip());
      if (t.getCause() == t) {
        break;
      }
    }
    return "tributary: "
        + String.join(" Caused by: ", parts)
        + " (set TRIBUTARY_DEBUG=1 for the stack trace)";
  }
}
