package dev.tributary.service.server;

import org.springframework.http.HttpStatus;

/** A REST request that cannot be served: rendered as {@link ApiError} with the given status. */
final class ApiException extends RuntimeException {
  private final HttpStatus status;

  ApiException(HttpStatus status, String message) {
    super(message);
    this.status = status;
  }

  HttpStatus status() {
    return status;
  }
}
