package dev.tributary.service.testing;

import java.util.Arrays;

/**
 * The main class of a {@link KafkaBrokerProcess} child JVM: runs Kafka's own main, and halts the
 * JVM as soon as the test JVM that started it is gone. A shutdown hook does not run when the test
 * JVM is killed (a Failsafe timeout, {@code kill -9}); without this watch every such kill would
 * leave a broker running, holding its ports and half a gigabyte.
 *
 * <p>Arguments: the parent's process id, then Kafka's own arguments.
 */
public final class KafkaBrokerLauncher {
  private KafkaBrokerLauncher() {}

  /** Starts the broker with {@code args[1..]} and watches the process {@code args[0]}. */
  public static void main(String[] args) throws Exception {
    long parent = Long.parseLong(args[0]);
    ProcessHandle.of(parent)
        .ifPresentOrElse(
            handle -> handle.onExit().thenRun(() -> Runtime.getRuntime().halt(0)),
            () -> Runtime.getRuntime().halt(0));
    String[] kafkaArgs = Arrays.copyOfRange(args, 1, args.length);
    Class.forName("kafka.Kafka").getMethod("main", String[].class).invoke(null, (Object) kafkaArgs);
  }
}
