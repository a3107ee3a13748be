package dev.tributary.service.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code tributary status [--url URL]}: prints the overview of a running {@code serve} (one line
 * per pipeline: state, lag, commit lag, freshness, then its last error) read from {@code GET
 * /api/pipelines}. The token rule is the API's: with {@code TRIBUTARY_API_TOKEN} in the environment
 * the request carries it as a bearer token; without one only a loopback URL answers. Exit 0 when
 * the API answered, 1 when it could not be read (unreachable, refused, not the API), with a message
 * saying why and what to do.
 */
final class StatusCommand {
  /** Where {@code serve} listens by default. */
  static final String DEFAULT_URL = "http://127.0.0.1:8080";

  static final String TOKEN_ENV = "TRIBUTARY_API_TOKEN";
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  private StatusCommand() {}

  static int run(CliArguments args, Map<String, String> env, PrintStream out, PrintStream err) {
    String base = args.option("url").orElse(DEFAULT_URL).replaceAll("/+$", "");
    URI uri;
    try {
      uri = URI.create(base + "/api/pipelines");
    } catch (IllegalArgumentException e) {
      throw new CliArguments.UsageException("--url is not a URL: " + base);
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json");
    String token = env.get(TOKEN_ENV);
    if (token != null && !token.isBlank()) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> response;
    try {
      HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      err.println(
          "tributary: cannot reach the Tributary API at "
              + base
              + " ("
              + cause(e)
              + "). Is `tributary serve` running there? Pass its address with --url URL.");
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("Interrupted while reading the Tributary API at " + base + ".");
      return 1;
    }
    String refusal = refusal(response.statusCode(), base, token != null && !token.isBlank());
    if (refusal != null) {
      err.println(refusal);
      return 1;
    }
    JsonNode pipelines;
    try {
      pipelines = JSON.readTree(response.body());
    } catch (IOException e) {
      pipelines = null;
    }
    if (pipelines == null || !pipelines.isArray()) {
      err.println(
          base + "/api/pipelines did not answer with the pipelines list: is --url a Tributary?");
      return 1;
    }
    out.print(format(pipelines));
    return 0;
  }

  /** Why a response is not the overview, with the fix; null for a 200. */
  static String refusal(int status, String base, boolean sentToken) {
    return switch (status) {
      case 200 -> null;
      case 401 ->
          "The Tributary API at "
              + base
              + (sentToken
                  ? " refused the token in " + TOKEN_ENV + ": set the service's token."
                  : " needs a token: set " + TOKEN_ENV + " to the service's token.");
      case 403 ->
          "The Tributary API at "
              + base
              + " has no token configured and answers only loopback requests: run status on the"
              + " service's machine, or configure "
              + TOKEN_ENV
              + " on both sides.";
      default ->
          "The Tributary API at "
              + base
              + " answered HTTP "
              + status
              + " to GET /api/pipelines: is --url a Tributary service?";
    };
  }

  /**
   * The overview of {@code GET /api/pipelines}: a header, one line per pipeline (id, state, lag,
   * commit lag, freshness, activity), and under a pipeline with one its last error ({@code
   * reason}). A value the service does not know yet shows as {@code -}.
   */
  static String format(JsonNode pipelines) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"PIPELINE", "STATE", "LAG", "COMMIT-LAG", "FRESHNESS", "ACTIVITY"});
    List<String> reasons = new ArrayList<>();
    for (JsonNode p : pipelines) {
      rows.add(
          new String[] {
            text(p, "id"),
            text(p, "state"),
            text(p, "lag"),
            text(p, "commitLag"),
            p.hasNonNull("freshnessSeconds") ? duration(p.get("freshnessSeconds").asDouble()) : "-",
            p.hasNonNull("activity") ? text(p.get("activity"), "phase") : "-"
          });
      reasons.add(p.hasNonNull("reason") ? p.get("reason").asText() : null);
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      StringBuilder line = new StringBuilder();
      String[] row = rows.get(r);
      for (int c = 0; c < row.length; c++) {
        line.append(c == 0 ? "" : "  ").append(String.format("%-" + widths[c] + "s", row[c]));
      }
      out.append(line.toString().stripTrailing()).append('\n');
      if (r > 0 && reasons.get(r - 1) != null) {
        out.append("  last error: ").append(reasons.get(r - 1)).append('\n');
      }
    }
    if (rows.size() == 1) {
      out.append("(no pipelines served)\n");
    }
    return out.toString();
  }

  /**
   * The failure's class and message: the class says most (a connect failure often has no message,
   * and its cause is only a closed channel).
   */
  private static String cause(Throwable e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName()
        + (message == null || message.isBlank() ? "" : ": " + message.strip());
  }

  private static String text(JsonNode node, String field) {
    return node.hasNonNull(field) ? node.get(field).asText() : "-";
  }

  /** {@code 42s}, {@code 3m05s}, {@code 2h01m}, {@code 3d04h}: compact, never negative. */
  static String duration(double seconds) {
    long s = Math.max(0, (long) Math.floor(seconds));
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    if (s < 86400) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }
    return String.format(Locale.ROOT, "%dd%02dh", s / 86400, (s % 86400) / 3600);
  }
}
