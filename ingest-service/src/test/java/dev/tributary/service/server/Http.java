package dev.tributary.service.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A tiny HTTP client for the serve tests: GET and POST against one base URI. */
final class Http {
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  Http(String base) {
    this.base = base;
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return get(path, null);
  }

  /** GET with an optional {@code Authorization} header value (null = none). */
  HttpResponse<String> get(String path, String authorization)
      throws IOException, InterruptedException {
    return client.send(
        request(path, authorization).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A GET request for {@link HttpClient#sendAsync}, with an optional {@code Authorization} header
   * value.
   */
  HttpRequest getRequest(String path, String authorization) {
    return request(path, authorization).timeout(Duration.ofSeconds(60)).GET().build();
  }

  HttpClient client() {
    return client;
  }

  private HttpRequest.Builder request(String path, String authorization) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return request;
  }

  /** POST with an optional {@code Authorization} header value (null = none). */
  HttpResponse<String> post(String path, String authorization)
      throws IOException, InterruptedException {
    return client.send(
        request(path, authorization)
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
