package dev.tributary.service.server;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Renders REST failures as {@link ApiError} JSON. */
@ConditionalOnProperty("tributary.pipelines-dir")
@RestControllerAdvice(assignableTypes = PipelinesController.class)
class ApiErrorHandler {

  @ExceptionHandler(ApiException.class)
  ResponseEntity<ApiError> api(ApiException e) {
    return error(e.status(), e.getMessage());
  }

  /** A body that is not JSON, or not of the shape the endpoint takes. */
  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<ApiError> unreadable(HttpMessageNotReadableException e) {
    Throwable cause = e.getMostSpecificCause();
    String detail = cause.getMessage() == null ? cause.toString() : cause.getMessage();
    // Jackson's message ends with a location line quoting the source; the first line says it.
    return error(
        HttpStatus.BAD_REQUEST,
        ServerMessages.unreadableBody(detail.lines().findFirst().orElse(detail)));
  }

  static ResponseEntity<ApiError> error(HttpStatus status, String message) {
    return ResponseEntity.status(status)
        .body(new ApiError(status.value(), status.getReasonPhrase(), message));
  }
}
