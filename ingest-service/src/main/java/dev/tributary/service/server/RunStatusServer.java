package dev.tributary.service.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status page of {@code tributary run --ui-port PORT}: the page of serve mode ({@code
 * static/index.html} and uPlot from the jar) and the read endpoints it uses, for the one pipeline
 * of the run, on the JDK's HTTP server (a run does not start Spring). The API answers as serve's
 * does ({@code /api/pipelines}, {@code /api/pipelines/{id}} with {@code last}, {@code .../commits},
 * {@code .../quarantine}, {@code /api/ui}) under the same token rule ({@link
 * ApiAccessFilter#decide}: with a token every {@code /api/**} request needs it; without one reads
 * answer on loopback only and POSTs are disabled). The one action is {@code POST
 * /api/pipelines/{id}/stop}: the run stops after its batch in progress, as with Ctrl-C, and the
 * command exits 0.
 */
public final class RunStatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunStatusServer.class);
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .findAndRegisterModules()
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
  private static final Pattern PIPELINE_PATH = Pattern.compile("/api/pipelines/([^/]+)(/[a-z-]+)?");
  private static final Set<String> READS = Set.of("", "/commits", "/quarantine");
  private static final Set<String> SERVE_ACTIONS =
      Set.of("/start", "/backfill", "/compact", "/vacuum");
  private static final Map<String, String> STATIC =
      Map.of(
          "/", "static/index.html",
          "/index.html", "static/index.html",
          "/status.js", "static/status.js",
          "/status.css", "static/status.css");

  private final HttpServer server;
  private final ExecutorService threads;
  private final ApiAccessFilter access;
  private final Path file;
  private final PipelineSpec spec;
  private final TriggerSpec trigger;
  private final ProgressLog progress;
  private final PipelineSupervisor supervisor;
  private final TableViews tables = new TableViews();
  private final Clock clock = Clock.systemUTC();
  private final AtomicReference<Instant> newestCommitted = new AtomicReference<>();

  private RunStatusServer(
      HttpServer server,
      Optional<String> token,
      Path file,
      PipelineSpec spec,
      TriggerSpec trigger,
      ProgressLog progress,
      PipelineSupervisor supervisor) {
    this.server = server;
    this.access = new ApiAccessFilter(token);
    this.file = file;
    this.spec = spec;
    this.trigger = trigger;
    this.progress = progress;
    this.supervisor = supervisor;
    this.threads =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "tributary-ui");
              t.setDaemon(true); // the page never keeps a finished run's JVM alive
              return t;
            });
    progress.addListener(
        p -> {
          if (p.newestRecordAt() != null) {
            newestCommitted.accumulateAndGet(
                p.newestRecordAt(), (old, now) -> old == null || now.isAfter(old) ? now : old);
          }
        });
    server.setExecutor(threads);
    server.createContext("/", this::handle);
  }

  /**
   * Starts the page on {@code port} (every interface, as serve does; 0 = a free port) for the run
   * that {@code supervisor} runs; stop it with {@link #close}.
   *
   * @param token the API token ({@code TRIBUTARY_API_TOKEN}), if configured
   * @throws IOException if the port cannot be bound
   */
  public static RunStatusServer start(
      int port,
      Optional<String> token,
      Path file,
      PipelineSpec spec,
      TriggerSpec trigger,
      ProgressLog progress,
      PipelineSupervisor supervisor)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 16);
    RunStatusServer ui =
        new RunStatusServer(server, token, file, spec, trigger, progress, supervisor);
    server.start();
    if (token.isEmpty()) {
      LOG.warn(ServerMessages.noTokenWarning());
    }
    return ui;
  }

  /** The port the page listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = normalized(exchange.getRequestURI());
      String method = exchange.getRequestMethod();
      if (path == null) {
        error(exchange, 400, "Bad request path.");
        return;
      }
      if (!path.equals("/api") && !path.startsWith("/api/")) {
        serveStatic(exchange, method, path);
        return;
      }
      InetAddress remote = exchange.getRemoteAddress().getAddress();
      switch (access.decide(
          method, path, remote, exchange.getRequestHeaders().getFirst("Authorization"))) {
        case PASS, AUTHORIZED -> api(exchange, method, path);
        case UNAUTHORIZED -> {
          exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
          error(exchange, 401, ServerMessages.tokenRejected());
        }
        case DISABLED -> error(exchange, 403, ServerMessages.tokenNotConfigured());
        case LOOPBACK_ONLY -> error(exchange, 403, ServerMessages.loopbackOnly());
      }
    } catch (RuntimeException e) {
      // A bug here must not end the run: the request fails, the run goes on.
      LOG.warn("Status page request failed: {}", spec.secrets().mask(e.toString()));
    }
  }

  /**
   * The request path with {@code .} and {@code ..} segments resolved and repeated slashes folded,
   * so that every spelling of an API path is checked as that path; null for a path with {@code ;}
   * parameters or one that climbs above the root.
   */
  static String normalized(URI uri) {
    String path = uri.normalize().getPath();
    if (path == null || path.isEmpty()) {
      return "/";
    }
    path = path.replaceAll("/{2,}", "/");
    if (!path.startsWith("/") || path.contains(";") || path.startsWith("/..")) {
      return null;
    }
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }

  private void api(HttpExchange exchange, String method, String path) throws IOException {
    if (path.equals("/api/ui") && method.equals("GET")) {
      json(exchange, 200, UiInfo.RUN);
      return;
    }
    if (path.equals("/api/pipelines") && method.equals("GET")) {
      json(exchange, 200, List.of(status()));
      return;
    }
    Matcher m = PIPELINE_PATH.matcher(path);
    if (!m.matches()) {
      error(exchange, 404, "No such endpoint: " + method + " " + path + ".");
      return;
    }
    if (!m.group(1).equals(spec.id())) {
      error(exchange, 404, ServerMessages.unknownPipeline(m.group(1), List.of(spec.id())));
      return;
    }
    String sub = m.group(2) == null ? "" : m.group(2);
    boolean read = method.equals("GET") && READS.contains(sub);
    boolean stop = method.equals("POST") && sub.equals("/stop");
    if (!read && !stop) {
      if (READS.contains(sub) || sub.equals("/stop") || SERVE_ACTIONS.contains(sub)) {
        error(exchange, 405, ServerMessages.notOfferedByRun(method, path));
      } else {
        error(exchange, 404, "No such endpoint: " + method + " " + path + ".");
      }
      return;
    }
    int last;
    try {
      last = lastParameter(exchange.getRequestURI(), sub.isEmpty() ? 20 : 10);
    } catch (NumberFormatException e) {
      error(exchange, 400, "Parameter 'last' must be a number.");
      return;
    }
    int max = sub.isEmpty() ? PipelinesController.MAX_PROGRESS : TableViews.MAX_LAST;
    if (last < 1 || last > max) {
      error(exchange, 400, "Parameter 'last' must be between 1 and " + max + ", was " + last + ".");
      return;
    }
    TableViews.Viewed viewed =
        new TableViews.Viewed(spec.id(), Optional.of(spec), progress, spec.secrets()::mask);
    switch (sub) {
      case "" -> json(exchange, 200, new PipelineDetails(status(), progress.last(last), null));
      case "/commits" -> {
        Object body;
        try {
          body = tables.recentCommits(viewed, last);
        } catch (IOException | RuntimeException e) {
          error(
              exchange, 503, unreadable("sink table", String.join(", ", spec.sinkLocations()), e));
          return;
        }
        json(exchange, 200, body);
      }
      case "/quarantine" -> {
        Object body;
        try {
          body = tables.quarantineSamples(viewed, last);
        } catch (IOException | RuntimeException e) {
          error(exchange, 503, unreadable("quarantine table", spec.quarantine().path(), e));
          return;
        }
        json(exchange, 200, body);
      }
      default -> {
        supervisor.stop();
        json(exchange, 202, new ActionResult(spec.id(), "stop", supervisor.lifecycle().state()));
      }
    }
  }

  private String unreadable(String what, String location, Throwable e) {
    return ServerMessages.tableUnreadable(
        spec.id(), what, spec.secrets().mask(location), Failures.describe(e, spec.secrets()));
  }

  private PipelineStatus status() {
    List<BatchProgress> last = progress.last(1);
    return PipelineStatus.of(
        spec.id(),
        file,
        Optional.of(spec),
        spec.secrets()::mask,
        supervisor.lifecycle(),
        trigger,
        last.isEmpty() ? null : last.get(0),
        progress.activity().snapshot(),
        new PipelineStatus.Freshness(newestCommitted.get(), progress.activity().uncommittedReads()),
        clock.instant());
  }

  private static int lastParameter(URI uri, int otherwise) {
    String query = uri.getRawQuery();
    if (query == null) {
      return otherwise;
    }
    for (String pair : query.split("&")) {
      if (pair.startsWith("last=")) {
        return Integer.parseInt(pair.substring(5));
      }
    }
    return otherwise;
  }

  private static void serveStatic(HttpExchange exchange, String method, String path)
      throws IOException {
    String resource = STATIC.get(path);
    if (resource == null && path.startsWith("/webjars/")) {
      resource = "META-INF/resources" + path;
    }
    if (!method.equals("GET") && !method.equals("HEAD")) {
      error(exchange, 405, "Only GET is answered here.");
      return;
    }
    InputStream in =
        resource == null
            ? null
            : RunStatusServer.class.getClassLoader().getResourceAsStream(resource);
    if (in == null) {
      error(exchange, 404, "Not found: " + path);
      return;
    }
    try (in) {
      byte[] body = in.readAllBytes();
      exchange.getResponseHeaders().set("Content-Type", contentType(resource));
      exchange.sendResponseHeaders(200, method.equals("HEAD") ? -1 : body.length);
      if (!method.equals("HEAD")) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }

  private static String contentType(String resource) {
    if (resource.endsWith(".html")) {
      return "text/html; charset=utf-8";
    }
    if (resource.endsWith(".js")) {
      return "text/javascript; charset=utf-8";
    }
    return resource.endsWith(".css") ? "text/css; charset=utf-8" : "application/octet-stream";
  }

  private static void json(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void error(HttpExchange exchange, int status, String message) throws IOException {
    json(exchange, status, new ApiError(status, reason(status), message));
  }

  private static String reason(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      default -> "Service Unavailable";
    };
  }
}
