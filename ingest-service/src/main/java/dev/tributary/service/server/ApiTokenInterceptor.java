package dev.tributary.service.server;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Guards the mutating REST endpoints (every method but GET, HEAD and OPTIONS under
 * {@code /api/}): without a configured token they answer 403 (disabled, never open); with one, a
 * request without {@code Authorization: Bearer <token>} or with another token answers 401. The
 * token is compared in constant time and never logged or echoed.
 */
final class ApiTokenInterceptor implements HandlerInterceptor {
  private final Optional<byte[]> token;

  ApiTokenInterceptor(Optional<String> token) {
    this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
      throws java.io.IOException {
    String method = request.getMethod();
    if ("GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method)) {
      return true;
    }
    if (token.isEmpty()) {
      return reject(response, HttpStatus.FORBIDDEN, ServerMessages.tokenNotConfigured());
    }
    String header = request.getHeader("Authorization");
    byte[] presented = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
        ? header.substring(7).strip().getBytes(StandardCharsets.UTF_8) : new byte[0];
    if (!MessageDigest.isEqual(presented, token.get())) {
      response.setHeader("WWW-Authenticate", "Bearer");
      return reject(response, HttpStatus.UNAUTHORIZED, ServerMessages.tokenRejected());
    }
    return true;
  }

  private static boolean reject(HttpServletResponse response, HttpStatus status, String message)
      throws java.io.IOException {
    response.setStatus(status.value());
    response.setContentType("application/json");
    response.setCharacterEncoding("UTF-8");
    response.getWriter().write("{\"status\":" + status.value() + ",\"error\":\"" + status.getReasonPhrase()
        + "\",\"message\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
    return false;
  }
}
