package dev.tributary.storage.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class S3TestServerIT {
  @Test
  void thePrivateServerServesS3AndStopsOnClose() throws IOException {
    S3TestServer server = S3TestServer.start();
    try {
      String first = server.createBucket();
      String second = server.createBucket();
      assertThat(first).isNotEqualTo(second);
      assertThat(server.endpoint().getHost()).isEqualTo("127.0.0.1");
      try (ObjectStore store = ObjectStores.open("s3://" + first, server.settings())) {
        assertThat(store.putIfAbsent("k", new byte[] {1})).isTrue();
        assertThat(store.putIfAbsent("k", new byte[] {2})).isFalse();
        assertThat(store.read("k")).containsExactly(1);
      }
    } finally {
      server.close();
    }

    assertThat(accepts(server)).as("stopped server still accepts connections").isFalse();
  }

  @Test
  void theServerStopsItselfWhenItsParentProcessIsKilled() throws IOException {
    Process parent = new ProcessBuilder("sleep", "300").start();
    S3TestServer server = S3TestServer.startWatching(parent.pid());
    try {
      assertThat(server.isRunning()).isTrue();

      parent.destroyForcibly();

      Awaitility.await("S3 test server exit after its parent was killed")
          .atMost(Duration.ofSeconds(30))
          .until(() -> !server.isRunning());
    } finally {
      parent.destroyForcibly();
      server.close();
    }
  }

  @Test
  void theSharedServerIsOnePerJvmAndSurvivesClose() {
    S3TestServer shared = S3TestServer.shared();
    shared.close();

    assertThat(S3TestServer.shared()).isSameAs(shared);
    assertThat(shared.createBucket()).startsWith("test-");
  }

  @Test
  void aMissingJarIsReportedWithTheFix(@TempDir Path emptyDir) {
    String previous = System.getProperty("tributary.test.servers.dir");
    System.setProperty("tributary.test.servers.dir", emptyDir.toString());
    try {
      assertThatThrownBy(S3TestServer::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("S3Proxy jar not found at " + emptyDir.resolve("s3proxy.jar"))
          .hasMessageContaining("generate-test-resources");
    } finally {
      if (previous == null) {
        System.clearProperty("tributary.test.servers.dir");
      } else {
        System.setProperty("tributary.test.servers.dir", previous);
      }
    }
  }

  private static boolean accepts(S3TestServer server) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", server.endpoint().getPort()), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
