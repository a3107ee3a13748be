package dev.tributary.service.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deliberate process death at a named step of the batch lifecycle, for the exactly-once crash tests
 * only. Enabled by the system property {@code tributary.test.crash-at=<point>:<n>}: the n-th time
 * the engine reaches {@code <point>} (counting from 1 in this process), the JVM halts at once with
 * exit code 137, exactly like {@code kill -9}: no shutdown hooks, no flushing, no cleanup. Without
 * the property every call is a single volatile-free field check.
 *
 * <p>{@code tributary.test.hold-at=<point>:<n>} with {@code tributary.test.hold-release=<file>}
 * instead holds the engine's thread at the n-th occurrence until the file exists (the Kafka
 * consumer's heartbeat goes on): a test then freezes the process there with SIGSTOP, to make a
 * zombie that is certain to hold a read batch (the consumer-group fencing test). With {@code
 * tributary.test.hold-armed=<file>} occurrences only count once that file exists.
 *
 * <p>In-process tests attack the engine without a child JVM: {@link #onThisThread} installs a hook
 * for the calling thread only (so tests running in parallel never see each other's), which is
 * called at every point the thread reaches and may throw (e.g. an {@link Error} the engine does not
 * catch, to stop a batch dead at that point).
 */
public final class CrashPoints {
  /** Points in the order a batch reaches them. */
  public static final String AFTER_PLAN = "after-plan";

  public static final String AFTER_OFFSETS_LOG = "after-offsets-log";
  public static final String MID_BATCH = "mid-batch";

  /**
   * A stream-stream join ({@link CompositeSource}): the main input's whole range was handed to the
   * processor, the second input's not yet.
   */
  public static final String AFTER_FIRST_INPUT = "after-first-input";

  public static final String AFTER_DATA_FILES = "after-data-files";
  public static final String AFTER_QUARANTINE_COMMIT = "after-quarantine-commit";
  public static final String AFTER_SINK_COMMIT = "after-sink-commit";

  /**
   * Several sinks ({@code sinks:}): one of them committed the batch, the ones after it in the list
   * did not (reached after every sink but the last, before {@link #AFTER_SINK_COMMIT}).
   */
  public static final String AFTER_SINK_PART_COMMIT = "after-sink-part-commit";

  /**
   * A routed sink ({@code sink.delta.route}): the tables of the batch's first routes (in route
   * order) committed it, the ones after did not (reached after every table but the last, before
   * {@link #AFTER_SINK_COMMIT}).
   */
  public static final String AFTER_ROUTE_COMMIT = "after-route-commit";

  /**
   * The continuous trigger: an interval's records were read and sent (in an open transaction with
   * exactly-once delivery), its range is not yet in the offsets log.
   */
  public static final String AFTER_CONTINUOUS_READ = "after-continuous-read";

  public static final String AFTER_STATE_COMMIT = "after-state-commit";

  /**
   * A stream-stream join followed by stateful operators: the join's store committed at the batch's
   * version, the operators' stores not yet (docs/DESIGN.md, "Step 8 as built").
   */
  public static final String AFTER_JOIN_STATE_COMMIT = "after-join-state-commit";

  public static final String AFTER_COMMITS_LOG = "after-commits-log";

  /**
   * Stage 1 of a stateful group-mode pipeline (exchange.ExchangeProgress): between two source
   * records.
   */
  public static final String EXCHANGE_MID_BATCH = "exchange-mid-batch";

  /** Stage 1: the quarantine table is committed, the Kafka transaction is not. */
  public static final String EXCHANGE_AFTER_QUARANTINE_COMMIT = "exchange-after-quarantine-commit";

  /** Stage 1: the Kafka transaction (rows, markers, source offsets) is committed. */
  public static final String EXCHANGE_AFTER_KAFKA_COMMIT = "exchange-after-kafka-commit";

  /**
   * {@code replay-quarantine} (replay.QuarantineReplay): between two replayed records, before any
   * commit of the run.
   */
  public static final String REPLAY_MID_RUN = "replay-mid-run";

  /** {@code replay-quarantine}: the run's sink commit is done, its quarantine commit is not. */
  public static final String REPLAY_AFTER_SINK_COMMIT = "replay-after-sink-commit";

  /**
   * {@code replay-quarantine}: a run's quarantine commit is done (also reached by the completion of
   * an interrupted run). The sink's data files before its commit are {@link #AFTER_DATA_FILES}.
   */
  public static final String REPLAY_AFTER_QUARANTINE_COMMIT = "replay-after-quarantine-commit";

  /** {@code backfill --replace}: the staging run is complete, the swap not planned. */
  public static final String BACKFILL_STAGED = "backfill-staged";

  /**
   * {@code backfill --replace}: the swap is planned and the rewritten files are written, not
   * committed (where a concurrent commit makes the swap re-plan).
   */
  public static final String BACKFILL_REWRITTEN = "backfill-rewritten";

  /** {@code backfill --replace}: the swap is committed, the summary not printed. */
  public static final String BACKFILL_SWAPPED = "backfill-swapped";

  /**
   * The points the batch body reaches, by name: stage 1 of a stateful group pipeline has its own
   * names, so a crash test can halt one stage and not the other.
   *
   * @param midBatch between two inputs of the batch
   * @param afterQuarantineCommit the quarantine table committed, the rest not
   * @param afterSinkCommit the sink committed
   * @param afterStateCommit the processor's state committed
   */
  public record Names(
      String midBatch,
      String afterQuarantineCommit,
      String afterSinkCommit,
      String afterStateCommit) {
    /** The engine's points. */
    public static final Names ENGINE =
        new Names(MID_BATCH, AFTER_QUARANTINE_COMMIT, AFTER_SINK_COMMIT, AFTER_STATE_COMMIT);

    /** Stage 1's points (it has no state; its sink is the Kafka transaction). */
    public static final Names EXCHANGE =
        new Names(
            EXCHANGE_MID_BATCH,
            EXCHANGE_AFTER_QUARANTINE_COMMIT,
            EXCHANGE_AFTER_KAFKA_COMMIT,
            "exchange-after-state-commit");
  }

  /** Called at every point a thread reaches, for in-process crash tests ({@link #onThisThread}). */
  @FunctionalInterface
  public interface Hook {
    void reached(String point);
  }

  private static final ThreadLocal<Hook> HOOK = new ThreadLocal<>();

  private static final String POINT;
  private static final long AT;
  private static final AtomicLong REACHED = new AtomicLong();
  private static final String HOLD_POINT;
  private static final long HOLD_AT;
  private static final AtomicLong HOLD_REACHED = new AtomicLong();

  static {
    String hold = System.getProperty("tributary.test.hold-at");
    if (hold == null || hold.isBlank()) {
      HOLD_POINT = null;
      HOLD_AT = -1;
    } else {
      int colon = hold.lastIndexOf(':');
      HOLD_POINT = hold.substring(0, colon);
      HOLD_AT = Long.parseLong(hold.substring(colon + 1));
    }
    String spec = System.getProperty("tributary.test.crash-at");
    if (spec == null || spec.isBlank()) {
      POINT = null;
      AT = -1;
    } else {
      int colon = spec.lastIndexOf(':');
      POINT = colon < 0 ? spec : spec.substring(0, colon);
      AT = colon < 0 ? 1 : Long.parseLong(spec.substring(colon + 1));
    }
  }

  private CrashPoints() {}

  /**
   * Runs {@code body} with {@code hook} called at every point this thread reaches, then removes it.
   * For tests: the hook may throw to cut the engine short at a point.
   */
  public static <T> T onThisThread(Hook hook, Callable<T> body) throws Exception {
    Hook before = HOOK.get();
    HOOK.set(hook);
    try {
      return body.call();
    } finally {
      HOOK.set(before);
    }
  }

  /** Halts the JVM if this is the configured point and occurrence. */
  public static void reached(String point) {
    Hook hook = HOOK.get();
    if (hook != null) {
      hook.reached(point);
    }
    if (POINT != null && POINT.equals(point) && REACHED.incrementAndGet() == AT) {
      System.err.println("tributary: crash point " + point + ":" + AT + " reached, halting");
      Runtime.getRuntime().halt(137);
    }
    if (HOLD_POINT != null
        && HOLD_POINT.equals(point)
        && holdArmed()
        && HOLD_REACHED.incrementAndGet() == HOLD_AT) {
      hold(point);
    }
  }

  private static boolean holdArmed() {
    String armed = System.getProperty("tributary.test.hold-armed");
    return armed == null || Files.exists(Path.of(armed));
  }

  private static void hold(String point) {
    Path release = Path.of(System.getProperty("tributary.test.hold-release"));
    System.err.println(
        "tributary: hold point " + point + ":" + HOLD_AT + " reached, waiting for " + release);
    while (!Files.exists(release)) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    System.err.println("tributary: hold point " + point + ":" + HOLD_AT + " released");
  }
}
