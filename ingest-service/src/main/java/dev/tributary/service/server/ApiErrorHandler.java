package dev.tributary.service.server;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
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

  static ResponseEntity<ApiError> error(HttpStatus status, String message) {
    return ResponseEntity.status(status)
        .body(new ApiError(status.value(), status.getReasonPhrase(), message));
  }
}
