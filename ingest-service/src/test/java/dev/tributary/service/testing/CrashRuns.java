package dev.tributary.service.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The checks every kill -9 test makes on a child JVM it started with {@code
 * -Dtributary.test.crash-at=POINT:N}: that the run halted there (exit 137, the status of a halt
 * without hooks, and the crash hook's own log line, so that a run that died for another reason does
 * not pass as a crash), or that a run without a crash point finished cleanly.
 */
public final class CrashRuns {
  /** How long a run may take to reach its crash point, on a loaded machine. */
  private static final long HALT_SECONDS = 120;

  /** How long a drain of everything the killed runs left may take, on a loaded machine. */
  private static final long FINISH_SECONDS = 180;

  private CrashRuns() {}

  /**
   * Waits for {@code child} to halt at {@code crashAt} and asserts that it did; a child still
   * running after the wait is killed first, so that no process outlives the test.
   *
   * @param crashAt the {@code POINT:N} the child was started with
   * @param log the child's output, quoted in a failure
   */
  public static void assertHaltedAt(Process child, String crashAt, Path log)
      throws InterruptedException, IOException {
    boolean exited = awaitExit(child, HALT_SECONDS);
    assertThat(exited)
        .as("crash point %s reached; log %s:%n%s", crashAt, log, ChildJvm.tail(log))
        .isTrue();
    assertThat(Files.readString(log))
        .as("the run halted at its crash point %s, not for another reason", crashAt)
        .contains("crash point " + crashAt + " reached");
    assertThat(child.exitValue())
        .as("halted at %s; log:%n%s", crashAt, ChildJvm.tail(log))
        .isEqualTo(137);
  }

  /**
   * Waits for {@code child} (a run without a crash point, e.g. the available-now drain after the
   * kills) to end and asserts exit status 0.
   */
  public static void assertFinished(Process child, Path log) throws InterruptedException {
    boolean exited = awaitExit(child, FINISH_SECONDS);
    assertThat(exited).as("run finished; log %s:%n%s", log, ChildJvm.tail(log)).isTrue();
    assertThat(child.exitValue()).as("exit code; log:%n%s", ChildJvm.tail(log)).isZero();
  }

  private static boolean awaitExit(Process child, long seconds) throws InterruptedException {
    boolean exited = child.waitFor(seconds, TimeUnit.SECONDS);
    if (!exited) {
      child.destroyForcibly().waitFor();
    }
    return exited;
  }
}
