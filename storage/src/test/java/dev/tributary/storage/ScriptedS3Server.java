package dev.tributary.storage;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * An HTTP server that answers S3 requests from a script, to provoke the failures a real server
 * cannot be asked for on demand (5xx, 409 conflicts, lost responses). Each request takes the next
 * scripted reply; when the script is empty every request gets the fallback reply. Requests are
 * recorded (method, path, If-None-Match header) for assertions.
 */
final class ScriptedS3Server implements AutoCloseable {
  /** A reply: an HTTP status, and an S3 error code for error statuses. */
  record Reply(int status, String errorCode, String body) {
    static Reply ok(String body) {
      return new Reply(200, null, body);
    }

    static Reply error(int status, String code) {
      return new Reply(status, code, null);
    }

    /** Reads the request, then closes the connection without answering: a lost response. */
    static Reply drop() {
      return new Reply(-1, null, null);
    }
  }

  /** What the server saw of one request. */
  record Request(String method, String path, String ifNoneMatch) {}

  private final HttpServer server;
  private final Deque<Reply> script = new ArrayDeque<>();
  private final List<Request> requests = new ArrayList<>();
  private Reply fallback = Reply.ok("");

  ScriptedS3Server() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", this::handle);
    server.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  synchronized ScriptedS3Server then(Reply reply) {
    script.addLast(reply);
    return this;
  }

  synchronized ScriptedS3Server otherwise(Reply reply) {
    fallback = reply;
    return this;
  }

  synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  S3Settings settings(int maxAttempts) {
    return S3Settings.defaults()
        .withEndpoint(endpoint())
        .withPathStyleAccess()
        .withCredentials("key", "secret")
        .withMaxAttempts(maxAttempts);
  }

  private void handle(HttpExchange exchange) throws IOException {
    exchange.getRequestBody().readAllBytes();
    Reply reply;
    synchronized (this) {
      requests.add(
          new Request(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getPath(),
              exchange.getRequestHeaders().getFirst("If-None-Match")));
      reply = script.isEmpty() ? fallback : script.pollFirst();
    }
    if (reply.status() < 0) {
      exchange.getResponseBody().close(); // closes the connection: no status line is sent
      return;
    }
    byte[] body =
        (reply.errorCode() == null
                ? reply.body()
                : "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                    + reply.errorCode()
                    + "</Code><Message>scripted "
                    + reply.errorCode()
                    + "</Message></Error>")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("ETag", "\"0123456789abcdef\"");
    exchange.getResponseHeaders().add("Last-Modified", "Wed, 01 Jan 2025 00:00:00 GMT");
    exchange
        .getResponseHeaders()
        .add(
            "Content-Type",
            reply.errorCode() == null ? "application/octet-stream" : "application/xml");
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(reply.status(), -1);
    } else {
      exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
    exchange.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
