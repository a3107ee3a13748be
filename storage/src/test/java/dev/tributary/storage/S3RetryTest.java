package dev.tributary.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ScriptedS3Server.Reply;
import dev.tributary.storage.ScriptedS3Server.Request;
import dev.tributary.storage.retry.RetryCounters;
import java.io.IOException;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retries and failure classification of the S3 store, against a server that replies from a script
 * (a real S3 server cannot be made to fail on demand).
 */
class S3RetryTest {
  private ScriptedS3Server server;

  @BeforeEach
  void startServer() throws IOException {
    server = new ScriptedS3Server();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  void transientServerErrorsAreRetriedUpToMaxAttempts() throws IOException {
    server
        .then(Reply.error(500, "InternalError"))
        .then(Reply.error(503, "ServiceUnavailable"))
        .then(Reply.ok("hello"));

    try (ObjectStore store = ObjectStores.open("s3://bucket/p", server.settings(3))) {
      assertThat(new String(store.read("k"), UTF_8)).isEqualTo("hello");
    }
    assertThat(server.requests())
        .hasSize(3)
        .allSatisfy(r -> assertThat(r.path()).isEqualTo("/bucket/p/k"));
  }

  @Test
  void retriesAreBoundedAndTheFinalErrorNamesTheObject() throws IOException {
    server.otherwise(Reply.error(500, "InternalError"));

    try (ObjectStore store = ObjectStores.open("s3://bucket/p", server.settings(2))) {
      assertThatThrownBy(() -> store.read("k"))
          .isInstanceOf(IOException.class)
          .hasMessage(
              "S3 read of s3://bucket/p/k at "
                  + server.endpoint()
                  + " failed: HTTP 500"
                  + " InternalError: scripted InternalError");
    }
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void putIfAbsentSendsIfNoneMatchAndReportsAnExistingKeyAsFalse() throws IOException {
    server.then(Reply.ok("")).then(Reply.error(412, "PreconditionFailed"));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(5))) {
      assertThat(store.putIfAbsent("log/1.json", new byte[] {1})).isTrue();
      assertThat(store.putIfAbsent("log/1.json", new byte[] {1})).isFalse();
    }
    assertThat(server.requests())
        .extracting(Request::method, Request::ifNoneMatch)
        .containsExactly(Tuple.tuple("PUT", "*"), Tuple.tuple("PUT", "*"));
  }

  @Test
  void aConditionalRequestConflictIsRetried() throws IOException {
    server
        .then(Reply.error(409, "ConditionalRequestConflict"))
        .then(Reply.error(503, "SlowDown"))
        .then(Reply.ok(""));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(5))) {
      assertThat(store.putIfAbsent("log/1.json", new byte[] {1})).isTrue();
    }
    assertThat(server.requests()).hasSize(3);
  }

  @Test
  void aServerErrorOnPutIfAbsentIsStateUnknownAndNotRetried() throws IOException {
    // A retry could meet our own object and wrongly report a lost race: never retry here.
    server.otherwise(Reply.error(500, "InternalError"));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(5))) {
      assertThatThrownBy(() -> store.putIfAbsent("log/1.json", new byte[] {1}))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith(
              "S3 put-if-absent of s3://bucket/log/1.json at "
                  + server.endpoint()
                  + " failed after the request was sent, so whether the object"
                  + " was created is unknown (HTTP 500 InternalError")
          .hasMessageEndingWith("read it back to find out, never delete it");
    }
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aLostResponseToPutIfAbsentIsStateUnknown() throws IOException {
    server.then(Reply.drop());

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(5))) {
      assertThatThrownBy(() -> store.putIfAbsent("log/1.json", new byte[] {1}))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("whether the object was created is unknown")
          .hasMessageContaining("failed to respond");
    }
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aLostResponseToAReadIsRetried() throws IOException {
    server.then(Reply.drop()).then(Reply.ok("data"));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(3))) {
      assertThat(new String(store.read("k"), UTF_8)).isEqualTo("data");
    }
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void conflictRetriesAreBoundedToo() throws IOException {
    server.otherwise(Reply.error(409, "ConditionalRequestConflict"));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(3))) {
      assertThatThrownBy(() -> store.putIfAbsent("log/1.json", new byte[] {1}))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("S3 put-if-absent of s3://bucket/log/1.json")
          .hasMessageContaining("HTTP 409 ConditionalRequestConflict");
    }
    assertThat(server.requests()).hasSize(3);
  }

  @Test
  void retriesAreCountedUnderTheirSites() throws IOException {
    long conditional = RetryCounters.retries("s3.put-if-absent");
    long plain = RetryCounters.retries("s3.request");
    server
        .then(Reply.error(409, "ConditionalRequestConflict"))
        .then(Reply.ok(""))
        .then(Reply.error(500, "InternalError"))
        .then(Reply.error(503, "ServiceUnavailable"))
        .then(Reply.ok("hello"))
        .then(Reply.ok("again"));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(5))) {
      assertThat(store.putIfAbsent("log/1.json", new byte[] {1})).isTrue();
      assertThat(new String(store.read("k"), UTF_8)).isEqualTo("hello");
      assertThat(new String(store.read("k"), UTF_8)).isEqualTo("again");
    }

    assertThat(RetryCounters.retries("s3.put-if-absent")).isEqualTo(conditional + 1);
    assertThat(RetryCounters.retries("s3.request")).isEqualTo(plain + 2);
  }

  @Test
  void accessDeniedIsNotRetriedAndSaysToCheckCredentials() throws IOException {
    server.otherwise(Reply.error(403, "AccessDenied"));

    try (ObjectStore store = ObjectStores.open("s3://bucket/p", server.settings(5))) {
      assertThatThrownBy(() -> store.list("x/"))
          .isInstanceOf(IOException.class)
          .hasMessage(
              "Access denied to s3://bucket/p/x/* at "
                  + server.endpoint()
                  + " (AccessDenied): check the access key / credentials and that they may access"
                  + " this bucket");
    }
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void aServerThatIgnoresRangeStillYieldsJustTheRange() throws IOException {
    server.otherwise(Reply.ok("0123456789"));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(5))) {
      assertThat(new String(store.readRange("k", 2, 3), UTF_8)).isEqualTo("234");
      assertThat(new String(store.readRange("k", 8, 100), UTF_8)).isEqualTo("89");
      assertThat(store.readRange("k", 20, 5)).isEmpty();
    }
  }

  @Test
  void aRangeStartingPastTheEndIsEmpty() throws IOException {
    server.then(Reply.error(416, "InvalidRange"));

    try (ObjectStore store = ObjectStores.open("s3://bucket", server.settings(5))) {
      assertThat(store.readRange("k", 100, 10)).isEmpty();
    }
  }
}
