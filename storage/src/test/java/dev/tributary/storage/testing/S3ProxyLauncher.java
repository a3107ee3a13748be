package dev.tributary.storage.testing;

import java.util.Arrays;

/**
 * The main class of the {@link S3TestServer} child JVM: runs S3Proxy's own main, and halts the JVM
 * as soon as the test JVM that started it is gone. A shutdown hook does not run when the test JVM
 * is killed (a Surefire timeout, {@code kill -9}); without this watch every such kill would leave
 * an S3 server of about 150 MB running.
 *
 * <p>Arguments: the parent's process id, then S3Proxy's own arguments.
 */
public final class S3ProxyLauncher {
  private S3ProxyLauncher() {}

  /** Starts S3Proxy with {@code args[1..]} and watches the process {@code args[0]}. */
  public static void main(String[] args) throws Exception {
    long parent = Long.parseLong(args[0]);
    ProcessHandle.of(parent)
        .ifPresentOrElse(
            handle -> handle.onExit().thenRun(() -> Runtime.getRuntime().halt(0)),
            () -> Runtime.getRuntime().halt(0));
    String[] s3ProxyArgs = Arrays.copyOfRange(args, 1, args.length);
    Class.forName("org.gaul.s3proxy.Main")
        .getMethod("main", String[].class)
        .invoke(null, (Object) s3ProxyArgs);
  }
}
