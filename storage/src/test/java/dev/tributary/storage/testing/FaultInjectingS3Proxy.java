package dev.tributary.storage.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An HTTP/1.1 proxy in front of an S3 API server that injects the faults of a real S3 endpoint,
 * with a seeded random: it answers a fraction of requests with {@code 503 SlowDown} without
 * forwarding them, drops the connection of a fraction of requests <em>after</em> the server has
 * answered them (the request took effect, the client never learns it: the "state unknown" path of a
 * conditional commit), and delays a fraction of requests. Everything else passes through byte for
 * byte: request and response bodies are copied as framed on the wire (Content-Length, {@code
 * chunked} with its trailers, and hence {@code aws-chunked} payloads), keep-alive connections stay
 * open, and {@code Expect: 100-continue} reaches the server, whose interim answer decides whether
 * the client sends the body.
 *
 * <p>One thread per client connection; each request gets its own upstream connection, so the proxy
 * never sends a request on an upstream connection the server may have closed while idle (which
 * would itself be an unplanned lost request).
 *
 * <p>Faults are decided per request, in arrival order, from one {@link Random} with the given seed;
 * with several client connections the arrival order (and so the exact set of faulted requests)
 * depends on timing, the rates do not. {@link Faults#dropEveryConditionalPut} adds a deterministic
 * fault on top: every n-th conditional PUT ({@code If-None-Match}) is dropped after the server has
 * answered it, so a run with enough commits certainly meets a commit of unknown outcome. {@link
 * #unreachable} makes the server unreachable until further notice: an outage no retry outlasts.
 */
public final class FaultInjectingS3Proxy implements AutoCloseable {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final int MAX_HEAD_BYTES = 64 * 1024;

  /**
   * What to inject. Rates are probabilities per request.
   *
   * @param slowDownRate answered {@code 503 SlowDown} by the proxy, never forwarded
   * @param dropRate forwarded and answered by the server, then the client's connection is closed
   *     without the answer
   * @param delayRate held for a random time up to {@code maxDelay} before forwarding
   * @param maxDelay the longest delay
   * @param dropEveryConditionalPut if positive, every n-th PUT with {@code If-None-Match} is
   *     dropped after the server answered it, regardless of the rates
   */
  public record Faults(
      double slowDownRate,
      double dropRate,
      double delayRate,
      Duration maxDelay,
      int dropEveryConditionalPut) {
    public Faults {
      Objects.requireNonNull(maxDelay, "maxDelay");
      if (slowDownRate < 0
          || dropRate < 0
          || delayRate < 0
          || slowDownRate + dropRate > 1
          || delayRate > 1) {
        throw new IllegalArgumentException(
            "fault rates must be probabilities (and slow-down + drop <= 1): "
                + slowDownRate
                + ", "
                + dropRate
                + ", "
                + delayRate);
      }
      if (dropEveryConditionalPut < 0) {
        throw new IllegalArgumentException("dropEveryConditionalPut must be 0 (off) or positive");
      }
    }

    /** Pass everything through unchanged. */
    public static Faults none() {
      return new Faults(0, 0, 0, Duration.ZERO, 0);
    }
  }

  /** What the proxy has done so far. */
  public record Counts(
      long requests, long slowDowns, long drops, long droppedConditionalPuts, long delays) {}

  private enum Action {
    FORWARD,
    SLOW_DOWN,
    DROP
  }

  private record Decision(Action action, long delayMillis) {}

  private final URI target;
  private final ServerSocket server;
  private final ExecutorService connections;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Random random;
  private volatile Faults faults;
  private volatile boolean unreachable;
  private long conditionalPuts;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong slowDowns = new AtomicLong();
  private final AtomicLong drops = new AtomicLong();
  private final AtomicLong droppedConditionalPuts = new AtomicLong();
  private final AtomicLong delays = new AtomicLong();

  private FaultInjectingS3Proxy(URI target, Faults faults, long seed) throws IOException {
    this.target = target;
    this.faults = faults;
    this.random = new Random(seed);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.connections =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "s3-fault-proxy");
              t.setDaemon(true);
              return t;
            });
    connections.execute(this::accept);
  }

  /**
   * Starts a proxy on a free port of 127.0.0.1 forwarding to {@code target} (an http:// endpoint).
   */
  public static FaultInjectingS3Proxy start(URI target, Faults faults, long seed)
      throws IOException {
    if (!"http".equals(target.getScheme())) {
      throw new IllegalArgumentException("the fault proxy forwards plain HTTP only, not " + target);
    }
    return new FaultInjectingS3Proxy(target, faults, seed);
  }

  /** The endpoint clients use instead of the server's, e.g. {@code http://127.0.0.1:41234}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  /** Changes the faults for requests that arrive from now on. */
  public void faults(Faults faults) {
    this.faults = Objects.requireNonNull(faults, "faults");
  }

  /**
   * While {@code true}, every request's connection is closed before the request is forwarded, as
   * when the network to S3 is down: nothing reaches the server and no client gets an answer.
   */
  public void unreachable(boolean unreachable) {
    this.unreachable = unreachable;
  }

  public Counts counts() {
    return new Counts(
        requests.get(), slowDowns.get(), drops.get(), droppedConditionalPuts.get(), delays.get());
  }

  /** Stops accepting and closes every open connection. */
  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      closeQuietly(s);
    }
    connections.shutdownNow();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        open.add(client);
        connections.execute(() -> serve(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  /** Serves the requests of one client connection, one after another (HTTP/1.1 keep-alive). */
  private void serve(Socket client) {
    try (client) {
      client.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(client.getInputStream());
      OutputStream out = client.getOutputStream();
      while (exchange(in, out)) {
        // next request on the same connection
      }
    } catch (IOException e) {
      // the client or the server went away: nothing to answer
    } finally {
      open.remove(client);
    }
  }

  /** Proxies one request; returns whether the client connection stays open for another. */
  private boolean exchange(InputStream clientIn, OutputStream clientOut) throws IOException {
    Head request = Head.read(clientIn);
    if (request == null) {
      return false;
    }
    requests.incrementAndGet();
    if (unreachable) {
      return false;
    }
    boolean conditionalPut =
        request.method().equals("PUT") && request.header("if-none-match") != null;
    Decision decision = decide(conditionalPut);
    if (decision.delayMillis() > 0) {
      delays.incrementAndGet();
      LockSupport.parkNanos(Duration.ofMillis(decision.delayMillis()).toNanos());
    }
    Action action = decision.action();
    boolean expectContinue = "100-continue".equalsIgnoreCase(request.header("expect"));
    if (action == Action.SLOW_DOWN) {
      slowDowns.incrementAndGet();
      return answerSlowDown(request, expectContinue, clientIn, clientOut);
    }
    try (Socket upstream = new Socket()) {
      upstream.connect(new InetSocketAddress(target.getHost(), target.getPort()), 10_000);
      upstream.setTcpNoDelay(true);
      open.add(upstream);
      try {
        InputStream serverIn = new BufferedInputStream(upstream.getInputStream());
        OutputStream serverOut = upstream.getOutputStream();
        request.write(serverOut);
        boolean bodySent = false;
        Head response;
        if (expectContinue) {
          serverOut.flush();
          response = Head.read(serverIn);
          if (response != null && response.status() == 100) {
            response.write(clientOut);
            clientOut.flush();
            copyBody(request, clientIn, serverOut);
            bodySent = true;
            response = Head.read(serverIn);
          }
        } else {
          copyBody(request, clientIn, serverOut);
          bodySent = true;
          serverOut.flush();
          response = Head.read(serverIn);
        }
        while (response != null && response.status() / 100 == 1) {
          response.write(
              clientOut); // other interim answers (102, 103) go to the client as they come
          response = Head.read(serverIn);
        }
        if (response == null) {
          throw new EOFException(
              "the S3 server closed the connection without answering " + request.line());
        }
        boolean bodyless =
            request.method().equals("HEAD") || response.status() == 204 || response.status() == 304;
        boolean untilClose = !bodyless && !response.chunked() && response.contentLength() < 0;
        // A client that was refused the body of an Expect request cannot tell its next request from
        // the unsent body on this connection: close it, and say so.
        boolean close = !bodySent || untilClose || request.wantsClose() || response.wantsClose();
        if (action == Action.DROP) {
          // The server has answered: the request took effect. Read the answer, then vanish.
          copyResponseBody(response, bodyless, serverIn, OutputStream.nullOutputStream());
          drops.incrementAndGet();
          if (conditionalPut) {
            droppedConditionalPuts.incrementAndGet();
          }
          return false;
        }
        (close ? response.withHeader("Connection", "close") : response).write(clientOut);
        copyResponseBody(response, bodyless, serverIn, clientOut);
        clientOut.flush();
        return !close;
      } finally {
        open.remove(upstream);
      }
    }
  }

  private synchronized Decision decide(boolean conditionalPut) {
    Faults f = faults;
    double r = random.nextDouble();
    boolean delayed = random.nextDouble() < f.delayRate();
    long delayMillis = delayed ? (long) (random.nextDouble() * f.maxDelay().toMillis()) : 0;
    Action action =
        r < f.slowDownRate()
            ? Action.SLOW_DOWN
            : r < f.slowDownRate() + f.dropRate() ? Action.DROP : Action.FORWARD;
    if (conditionalPut
        && f.dropEveryConditionalPut() > 0
        && ++conditionalPuts % f.dropEveryConditionalPut() == 0) {
      action = Action.DROP;
    }
    return new Decision(action, delayMillis);
  }

  /**
   * Answers {@code 503 SlowDown} as S3 does, without forwarding. A body the client has sent (or
   * will send without waiting) is read and discarded first, so that the connection can be kept; a
   * client waiting for {@code 100 Continue} never sends one, and its connection is closed.
   */
  private boolean answerSlowDown(
      Head request, boolean expectContinue, InputStream clientIn, OutputStream clientOut)
      throws IOException {
    if (!expectContinue) {
      copyBody(request, clientIn, OutputStream.nullOutputStream());
    }
    String requestId = Long.toHexString(requests.get());
    byte[] body =
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
                + "<Message>Please reduce your request rate.</Message><RequestId>"
                + requestId
                + "</RequestId><HostId>fault-proxy</HostId></Error>")
            .getBytes(StandardCharsets.UTF_8);
    boolean head = request.method().equals("HEAD");
    boolean close = expectContinue || request.wantsClose();
    String response =
        "HTTP/1.1 503 Slow Down\r\n"
            + "Content-Type: application/xml\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n"
            + "x-amz-request-id: "
            + requestId
            + "\r\n"
            + "Retry-After: 1\r\n"
            + (close ? "Connection: close\r\n" : "")
            + "\r\n";
    clientOut.write(response.getBytes(StandardCharsets.ISO_8859_1));
    if (!head) {
      clientOut.write(body);
    }
    clientOut.flush();
    return !close;
  }

  private static void copyResponseBody(
      Head response, boolean bodyless, InputStream in, OutputStream out) throws IOException {
    if (bodyless) {
      return;
    }
    if (!response.chunked() && response.contentLength() < 0) {
      in.transferTo(out); // delimited by the end of the connection
      return;
    }
    copyBody(response, in, out);
  }

  /**
   * Copies a message body exactly as framed: chunked (with chunk lines and trailers) or by length.
   */
  private static void copyBody(Head head, InputStream in, OutputStream out) throws IOException {
    if (head.chunked()) {
      while (true) {
        byte[] sizeLine = readLine(in);
        out.write(sizeLine);
        String text = new String(sizeLine, StandardCharsets.ISO_8859_1).trim();
        int semicolon = text.indexOf(';');
        long size = Long.parseLong(semicolon < 0 ? text : text.substring(0, semicolon).trim(), 16);
        if (size == 0) {
          byte[] trailer;
          do {
            trailer = readLine(in);
            out.write(trailer);
          } while (trailer.length > 2);
          return;
        }
        copyExactly(in, out, size);
        byte[] end = readLine(in);
        out.write(end);
      }
    }
    long length = head.contentLength();
    if (length > 0) {
      copyExactly(in, out, length);
    }
  }

  private static void copyExactly(InputStream in, OutputStream out, long count) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long left = count;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        throw new EOFException("connection closed " + left + " bytes before the end of a body");
      }
      out.write(buffer, 0, n);
      left -= n;
    }
  }

  /** One line including its CRLF (or a bare LF), as read. */
  private static byte[] readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed inside a chunked body");
      }
      line.write(b);
      if (b == '\n') {
        return line.toByteArray();
      }
      if (line.size() > MAX_HEAD_BYTES) {
        throw new IOException("line longer than " + MAX_HEAD_BYTES + " bytes");
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /**
   * The start line and header lines of a request or response, kept as they were received (each line
   * without its CRLF) so that they are forwarded unchanged.
   */
  private record Head(String line, List<String> headers) {
    /** Reads a head; null at a clean end of the stream before its first byte. */
    static Head read(InputStream in) throws IOException {
      List<String> lines = new ArrayList<>();
      ByteArrayOutputStream current = new ByteArrayOutputStream(128);
      int total = 0;
      while (true) {
        int b;
        try {
          b = in.read();
        } catch (SocketException e) {
          if (lines.isEmpty() && current.size() == 0) {
            return null; // reset while idle between requests
          }
          throw e;
        }
        if (b < 0) {
          if (lines.isEmpty() && current.size() == 0) {
            return null;
          }
          throw new EOFException("connection closed inside an HTTP head");
        }
        if (++total > MAX_HEAD_BYTES) {
          throw new IOException("HTTP head longer than " + MAX_HEAD_BYTES + " bytes");
        }
        if (b == '\n') {
          String text = current.toString(StandardCharsets.ISO_8859_1);
          if (text.endsWith("\r")) {
            text = text.substring(0, text.length() - 1);
          }
          current.reset();
          if (text.isEmpty()) {
            if (lines.isEmpty()) {
              continue; // a stray CRLF between messages (RFC 9112 allows ignoring it)
            }
            return new Head(lines.get(0), List.copyOf(lines.subList(1, lines.size())));
          }
          lines.add(text);
        } else {
          current.write(b);
        }
      }
    }

    String method() {
      int space = line.indexOf(' ');
      return space < 0 ? line : line.substring(0, space);
    }

    int status() {
      String[] parts = line.split(" ", 3);
      return parts.length > 1 && parts[0].startsWith("HTTP/") ? Integer.parseInt(parts[1]) : -1;
    }

    /** The value of the first header of that name (case-insensitive), or null. */
    String header(String name) {
      for (String h : headers) {
        int colon = h.indexOf(':');
        if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return h.substring(colon + 1).trim();
        }
      }
      return null;
    }

    boolean chunked() {
      String te = header("transfer-encoding");
      return te != null && te.toLowerCase(Locale.ROOT).trim().endsWith("chunked");
    }

    long contentLength() {
      String length = header("content-length");
      return length == null ? -1 : Long.parseLong(length);
    }

    boolean wantsClose() {
      String connection = header("connection");
      return connection != null && connection.toLowerCase(Locale.ROOT).contains("close")
          || line.endsWith("HTTP/1.0")
          || line.startsWith("HTTP/1.0");
    }

    /** This head with {@code name} set to {@code value}, replacing any header of that name. */
    Head withHeader(String name, String value) {
      List<String> kept = new ArrayList<>();
      for (String h : headers) {
        int colon = h.indexOf(':');
        if (colon < 0 || !h.substring(0, colon).trim().equalsIgnoreCase(name)) {
          kept.add(h);
        }
      }
      kept.add(name + ": " + value);
      return new Head(line, kept);
    }

    void write(OutputStream out) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
      bytes.write(line.getBytes(StandardCharsets.ISO_8859_1));
      bytes.write(CRLF);
      for (String h : headers) {
        bytes.write(h.getBytes(StandardCharsets.ISO_8859_1));
        bytes.write(CRLF);
      }
      bytes.write(CRLF);
      out.write(bytes.toByteArray());
    }
  }
}
