package dev.tributary.service.testing;

import dev.tributary.service.demo.LocalSchemaRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The test registry's child JVM ({@link TestSchemaRegistry}): a {@link LocalSchemaRegistry} that a
 * test can kill and restart, and that dies with the test JVM.
 *
 * <p>Arguments: parent pid, port, state file, then optionally {@code basic=user:pass} or {@code
 * bearer=token}, and {@code tls=<PKCS12 key store>:<password>} to serve https.
 */
public final class SchemaRegistryMain {
  private SchemaRegistryMain() {}

  public static void main(String[] args) throws Exception {
    long parent = Long.parseLong(args[0]);
    ProcessHandle.of(parent)
        .ifPresentOrElse(
            handle -> handle.onExit().thenRun(() -> Runtime.getRuntime().halt(0)),
            () -> Runtime.getRuntime().halt(0));
    int port = Integer.parseInt(args[1]);
    String auth = null;
    SSLContext tls = null;
    for (int i = 3; i < args.length; i++) {
      String a = args[i];
      if (a.startsWith("basic=")) {
        auth =
            "Basic "
                + Base64.getEncoder()
                    .encodeToString(a.substring(6).getBytes(StandardCharsets.UTF_8));
      } else if (a.startsWith("bearer=")) {
        auth = "Bearer " + a.substring("bearer=".length());
      } else if (a.startsWith("tls=")) {
        tls = context(a.substring(4));
      }
    }
    LocalSchemaRegistry.start(port, Path.of(args[2]), auth, tls);
    System.out.println("registry listening on " + port);
  }

  private static SSLContext context(String storeAndPassword) throws Exception {
    int cut = storeAndPassword.lastIndexOf(':');
    char[] password = storeAndPassword.substring(cut + 1).toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(Path.of(storeAndPassword.substring(0, cut)))) {
      keys.load(in, password);
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    return context;
  }
}
