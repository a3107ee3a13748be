package dev.tributary.service.server;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.Principal;
import java.util.Optional;
import org.springframework.http.HttpStatus;

/**
 * Who may use which HTTP endpoint of serve mode. The rules, in order:
 *
 * <ul>
 *   <li>{@code /actuator/health/liveness} and {@code /actuator/health/readiness} are open: probes
 *       carry no token and these answer only UP or DOWN.
 *   <li>With a configured token ({@code TRIBUTARY_API_TOKEN}): every {@code /api/**} request, reads
 *       included, needs {@code Authorization: Bearer <token>}, else 401. The rest of {@code
 *       /actuator/health} answers everyone with its overall status, and with the components and
 *       their details (pipeline reasons, Kafka and store outcomes) only to a request with the
 *       token.
 *   <li>Without a token: mutating {@code /api/**} requests answer 403 (disabled, never open); the
 *       read endpoints of {@code /api/**} and the health details answer only requests from a
 *       loopback address (403 from elsewhere), so that an unconfigured service shows nothing to the
 *       network. The service says so in a warning at start.
 * </ul>
 *
 * Other paths (metrics, info, the status page's static files, which hold no data) are not guarded.
 * A request with the token (or, without one, from loopback) is marked authorized with a principal,
 * which is how the actuator decides to show health details ({@code show-details: when-authorized}).
 * The token is compared in constant time and never logged or echoed.
 */
final class ApiAccessFilter implements Filter {
  /** The principal of an authorized request; the actuator only asks whether there is one. */
  private static final Principal OPERATOR = () -> "tributary-operator";

  private final Optional<byte[]> token;

  ApiAccessFilter(Optional<String> token) {
    this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
  }

  /** What to do with a request. */
  enum Decision {
    /** Serve it as it is. */
    PASS,
    /** Serve it as an authorized request (the health details show). */
    AUTHORIZED,
    /** 401: the token is missing or wrong. */
    UNAUTHORIZED,
    /** 403, no token configured: mutating endpoints are disabled. */
    DISABLED,
    /** 403, no token configured: reads answer on loopback only. */
    LOOPBACK_ONLY
  }

  /**
   * Decides about one request.
   *
   * @param method the HTTP method
   * @param path the request path inside the context ({@code /api/pipelines})
   * @param remote the client's address
   * @param authorization the {@code Authorization} header, or null
   */
  Decision decide(String method, String path, InetAddress remote, String authorization) {
    if (path.equals("/actuator/health/liveness") || path.equals("/actuator/health/readiness")) {
      return Decision.PASS;
    }
    boolean health = path.equals("/actuator/health") || path.startsWith("/actuator/health/");
    boolean api = path.equals("/api") || path.startsWith("/api/");
    if (!health && !api) {
      return Decision.PASS;
    }
    boolean read = "GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method);
    if (token.isEmpty()) {
      if (api && !read) {
        return Decision.DISABLED;
      }
      if (remote.isLoopbackAddress()) {
        return Decision.AUTHORIZED;
      }
      return health ? Decision.PASS : Decision.LOOPBACK_ONLY;
    }
    if (presents(authorization)) {
      return Decision.AUTHORIZED;
    }
    return health ? Decision.PASS : Decision.UNAUTHORIZED;
  }

  private boolean presents(String header) {
    byte[] presented =
        header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
            ? header.substring(7).strip().getBytes(StandardCharsets.UTF_8)
            : new byte[0];
    return MessageDigest.isEqual(presented, token.get());
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    // The decoded, normalized path the request is dispatched by ("/x/../api", "/api;p=1" and
    // "//api"
    // all become "/api"), not the raw URI, which would let such spellings pass unguarded.
    String path =
        request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
    switch (decide(
        request.getMethod(), path, remote(request), request.getHeader("Authorization"))) {
      case PASS -> chain.doFilter(request, response);
      case AUTHORIZED ->
          chain.doFilter(
              new HttpServletRequestWrapper(request) {
                @Override
                public Principal getUserPrincipal() {
                  return OPERATOR;
                }
              },
              response);
      case UNAUTHORIZED -> {
        response.setHeader("WWW-Authenticate", "Bearer");
        reject(response, HttpStatus.UNAUTHORIZED, ServerMessages.tokenRejected());
      }
      case DISABLED -> reject(response, HttpStatus.FORBIDDEN, ServerMessages.tokenNotConfigured());
      case LOOPBACK_ONLY -> reject(response, HttpStatus.FORBIDDEN, ServerMessages.loopbackOnly());
    }
  }

  private static InetAddress remote(HttpServletRequest request) throws UnknownHostException {
    // The connection's peer address as an IP literal: no name lookup happens.
    return InetAddress.getByName(request.getRemoteAddr());
  }

  private static void reject(HttpServletResponse response, HttpStatus status, String message)
      throws IOException {
    response.setStatus(status.value());
    response.setContentType("application/json");
    response.setCharacterEncoding("UTF-8");
    response
        .getWriter()
        .write(
            "{\"status\":"
                + status.value()
                + ",\"error\":\""
                + status.getReasonPhrase()
                + "\",\"message\":\""
                + message.replace("\\", "\\\\").replace("\"", "\\\"")
                + "\"}");
  }
}
