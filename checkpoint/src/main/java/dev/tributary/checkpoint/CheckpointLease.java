package dev.tributary.checkpoint;

import dev.tributary.checkpoint.internal.CheckpointErrors;
import dev.tributary.checkpoint.internal.LeaseCodec;
import dev.tributary.checkpoint.internal.LocalProcess;
import dev.tributary.checkpoint.internal.LogKeys;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One owner per checkpoint: a lease in the checkpoint, held by the process that runs the pipeline,
 * renewed in the background, released when the run ends. It turns "two processes on one
 * checkpoint", which put-if-absent of the log entries only detects at the next commit, into a
 * refusal at start that names the owner.
 *
 * <p>Protocol (docs/CHECKPOINT_FORMAT.md, "Lease"), on any {@link ObjectStore}: no rename, no lock
 * service.
 *
 * <ol>
 *   <li><b>Epochs.</b> Lease files are {@code lease/<epoch>}, the highest epoch is the current
 *       lease. A new owner creates epoch {@code current + 1} (0 for none) with put-if-absent: of
 *       several processes starting at once exactly one wins; the others see the winner's lease and
 *       are refused.
 *   <li><b>Taking over.</b> A start may take the current lease over only if it was released (a
 *       graceful stop, {@link #breakLease}), if its owner's process is certainly gone (same Linux
 *       boot and pid namespace, no such process: a {@code kill -9} on this machine), or if it
 *       expired. Otherwise the start fails with {@link CheckpointInUseException}.
 *   <li><b>Expiry, by the store's clock.</b> A lease expires {@code duration} after its file was
 *       last written, comparing the file's modification time with a modification time the reader
 *       causes now (it rewrites {@code lease/clock} and reads its time back). Both times come from
 *       the store (S3, or the file system), so hosts whose clocks disagree still agree on expiry.
 *       The times inside the file are the owner's, for people to read.
 *   <li><b>Renewal.</b> The owner rewrites its own file (plain put) every third of the duration, on
 *       a daemon thread, after checking that its epoch is still the highest and the file still
 *       names it.
 *   <li><b>Fencing.</b> Before each write to the logs, a {@linkplain Checkpoint#fencedBy fenced}
 *       checkpoint calls {@link #checkHeld()}: one listing of {@code lease/}; if a higher epoch
 *       exists the write fails with {@link LeaseLostException} naming the new owner. The logs' own
 *       put-if-absent still decides any race left between the check and the write: the lease makes
 *       a second writer rare and its failure clear; put-if-absent keeps it harmless.
 *   <li><b>Release.</b> {@link #close()} rewrites the file with {@code releasedAt}: the next start
 *       takes over at once. Files are never deleted while they could be current; old epochs beyond
 *       the last ten are deleted after a takeover.
 * </ol>
 *
 * <p>Thread-safe. The lease does not own the store and does not close it.
 */
public final class CheckpointLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointLease.class);

  /** The key a reader rewrites to learn the store's time. */
  static final String CLOCK_KEY = LogKeys.LEASE_DIR + "clock";

  // Epochs below the current one that are kept, as a short record of who ran the pipeline.
  private static final int KEPT_EPOCHS = 10;
  // Each lost race means another process took the lease in between; then it is live and the next
  // attempt refuses. More attempts only help against processes that release at once, in a loop.
  private static final int MAX_ATTEMPTS = 5;

  /** Schedules a lease's renewals; returns what cancels them. */
  @FunctionalInterface
  interface Renewer {
    Runnable start(String threadName, Duration interval, Runnable renewal);

    /** One daemon thread per lease: a stuck renewal never keeps the JVM alive. */
    Renewer DAEMON_THREAD = CheckpointLease::renewOnDaemonThread;
  }

  // The renewal catches its own failures (a failure would end the schedule): nothing to learn from
  // the future.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static Runnable renewOnDaemonThread(String name, Duration interval, Runnable renewal) {
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    long millis = Math.max(1, interval.toMillis());
    executor.scheduleWithFixedDelay(renewal, millis, millis, TimeUnit.MILLISECONDS);
    return executor::shutdownNow;
  }

  /**
   * The owner ids of the leases this process holds now. A lease of this process's own that is not
   * among them belongs to a run that ended without releasing it (the release could not be written,
   * say on a full disk): the next run of the same process may take it over at once, as it would a
   * dead process's.
   */
  private static final Set<String> HELD_HERE = ConcurrentHashMap.newKeySet();

  /** The owner ids of every lease this process ever took. */
  private static final Set<String> TAKEN_HERE = ConcurrentHashMap.newKeySet();

  private final ObjectStore store;
  private final String pipelineId;
  private final LeaseSettings settings;
  private final Object lock = new Object();
  private final Runnable stopRenewals;

  // Written under lock; read without it by checkHeld, so a slow renewal never delays a write.
  private volatile Lease lease;
  // Guarded by lock.
  private boolean closed;
  // Set once, when this process learns that it lost the lease.
  private volatile LeaseLostException lost;

  private CheckpointLease(
      ObjectStore store, String pipelineId, LeaseSettings settings, Lease lease, Renewer renewer) {
    this.store = store;
    this.pipelineId = pipelineId;
    this.settings = settings;
    this.lease = lease;
    this.stopRenewals =
        renewer.start(
            "tributary-lease-" + pipelineId, settings.renewalInterval(), this::renewQuietly);
  }

  /**
   * Takes the lease of the checkpoint in {@code store} for this process and starts renewing it.
   *
   * @throws CheckpointInUseException if another process holds a live lease
   * @throws CorruptCheckpointException if the current lease file cannot be read
   * @throws IOException if the store fails
   */
  public static CheckpointLease acquire(
      ObjectStore store, String pipelineId, LeaseSettings settings) throws IOException {
    return acquire(store, pipelineId, settings, LeaseOwner.thisProcess(), Renewer.DAEMON_THREAD);
  }

  static CheckpointLease acquire(
      ObjectStore store,
      String pipelineId,
      LeaseSettings settings,
      LeaseOwner owner,
      Renewer renewer)
      throws IOException {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(pipelineId, "pipelineId");
    Objects.requireNonNull(settings, "settings");
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      Optional<Current> current = currentFile(store);
      String why = "";
      long epoch = 0;
      if (current.isPresent()) {
        why = takeOverReason(store, pipelineId, current.get());
        epoch = current.get().lease().epoch() + 1;
      }
      Instant now = settings.clock().instant();
      Lease mine =
          new Lease(
              epoch,
              pipelineId,
              owner,
              now,
              now,
              settings.duration(),
              Optional.empty(),
              OptionalLong.empty());
      if (create(store, mine)) {
        if (current.isPresent()) {
          Lease previous = current.get().lease();
          // A release is the normal end of a run; anything else means the last owner did not stop
          // cleanly, which an operator wants to see.
          boolean clean = previous.released() && previous.brokenEpoch().isEmpty();
          String text = "Pipeline {}: took over the lease of checkpoint {} from {} ({}), epoch {}";
          Object[] values = {pipelineId, store.location(), previous.owner().describe(), why, epoch};
          if (clean) {
            LOG.info(text, values);
          } else {
            LOG.warn(text, values);
          }
          deleteOldEpochs(store, epoch);
        } else {
          LOG.debug("Pipeline {}: took the lease of checkpoint {}", pipelineId, store.location());
        }
        TAKEN_HERE.add(owner.id());
        HELD_HERE.add(owner.id());
        return new CheckpointLease(store, pipelineId, settings, mine, renewer);
      }
      // Another process created this epoch first: look at its lease again.
    }
    throw CheckpointErrors.leaseContended(pipelineId, store.location(), MAX_ATTEMPTS);
  }

  /**
   * The current lease of the checkpoint in {@code store} (the highest epoch), or empty if no
   * process ever took one.
   */
  public static Optional<Lease> current(ObjectStore store) throws IOException {
    return currentFile(store).map(Current::lease);
  }

  /**
   * Breaks the current lease for an owner that cannot release it (its machine is down) and that the
   * caller does not want to wait for: writes the next epoch as a lease released at once, so the
   * next start takes the checkpoint over without waiting, and the old owner, if it still runs,
   * fails at its next checkpoint write with {@link LeaseLostException}.
   *
   * @return the lease that was broken; empty if there was none or it was already released
   * @throws IOException if the store fails, or another process took the lease meanwhile (run it
   *     again after looking at who did)
   */
  public static Optional<Lease> breakLease(
      ObjectStore store, String pipelineId, LeaseSettings settings) throws IOException {
    Optional<Current> current = currentFile(store);
    if (current.isEmpty() || current.get().lease().released()) {
      return Optional.empty();
    }
    Lease broken = current.get().lease();
    Instant now = settings.clock().instant();
    Lease breaker =
        new Lease(
            broken.epoch() + 1,
            pipelineId,
            LeaseOwner.thisProcess(),
            now,
            now,
            settings.duration(),
            Optional.of(now),
            OptionalLong.of(broken.epoch()));
    if (!create(store, breaker)) {
      throw new IOException(
          "Cannot break the lease of checkpoint "
              + store.location()
              + ": another process took it over while it was being broken; run break-lease again"
              + " if that process must not run either.");
    }
    LOG.warn(
        "Pipeline {}: broke the lease of checkpoint {} held by {} since {} (epoch {})",
        pipelineId,
        store.location(),
        broken.owner().describe(),
        broken.acquiredAt(),
        broken.epoch());
    return Optional.of(broken);
  }

  /** The lease as this process last wrote it. */
  public Lease lease() {
    return lease;
  }

  /**
   * Checks that this process still holds the lease: one listing of the lease folder. Call it right
   * before writing to the checkpoint.
   *
   * @throws LeaseLostException if another process took the lease over (from then on, always)
   * @throws IOException if the store fails
   */
  public void checkHeld() throws IOException {
    LeaseLostException known = lost;
    if (known != null) {
      throw new LeaseLostException(known.getMessage());
    }
    Lease ours = lease;
    OptionalLong highest = highestEpoch(store);
    if (highest.isPresent() && highest.getAsLong() == ours.epoch()) {
      return;
    }
    throw markLost(ours, successor(ours));
  }

  /** The lease that took over from {@code ours}: the next epoch, else the current one. */
  private Optional<Lease> successor(Lease ours) throws IOException {
    Optional<Lease> next = read(store, key(ours.epoch() + 1));
    return next.isPresent() ? next : currentFile(store).map(Current::lease);
  }

  /**
   * Renews the lease now: checks that it is still this process's, then rewrites its file. The
   * background renewer calls it every third of the lease duration.
   *
   * @throws LeaseLostException if another process took the lease over
   * @throws IOException if the store fails; the next renewal tries again
   */
  void renew() throws IOException {
    synchronized (lock) {
      if (closed) {
        return;
      }
      LeaseLostException known = lost;
      if (known != null) {
        throw new LeaseLostException(known.getMessage());
      }
      // The file itself, not only the listing: a file rewritten by hand under our epoch is not
      // ours.
      Optional<Current> current = currentFile(store);
      if (current.isEmpty()
          || current.get().lease().epoch() != lease.epoch()
          || !current.get().lease().owner().id().equals(lease.owner().id())) {
        throw markLost(lease, successor(lease));
      }
      Lease renewed = lease.asRenewedAt(settings.clock().instant());
      store.put(key(renewed.epoch()), LeaseCodec.encode(renewed));
      lease = renewed;
    }
  }

  private void renewQuietly() {
    try {
      renew();
    } catch (LeaseLostException e) {
      // Logged once by markLost; the next checkpoint write fails with it.
    } catch (IOException | RuntimeException e) {
      Lease current = lease;
      LOG.warn(
          "Pipeline {}: could not renew the lease of checkpoint {} (it expires at {} unless a"
              + " later renewal succeeds): {}",
          pipelineId,
          store.location(),
          current.expiresAt(),
          e.toString());
    }
  }

  /**
   * Stops renewing and releases the lease, so that the next start takes the checkpoint over at
   * once. Never throws: a lease that cannot be released expires.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      HELD_HERE.remove(lease.owner().id());
      if (lost == null) {
        Lease released = lease.asReleasedAt(settings.clock().instant());
        try {
          store.put(key(released.epoch()), LeaseCodec.encode(released));
          lease = released;
          LOG.debug("Pipeline {}: released the lease of {}", pipelineId, store.location());
        } catch (IOException | RuntimeException e) {
          LOG.warn(
              "Pipeline {}: could not release the lease of checkpoint {}; a restart on another"
                  + " machine waits until it expires at {}: {}",
              pipelineId,
              store.location(),
              lease.expiresAt(),
              e.toString());
        }
      }
    }
    stopRenewals.run();
  }

  private LeaseLostException markLost(Lease ours, Optional<Lease> successor) {
    LeaseLostException e =
        CheckpointErrors.leaseLost(pipelineId, store.location(), ours, successor.orElse(null));
    if (lost == null) {
      lost = e;
      LOG.error(e.getMessage());
    }
    return e;
  }

  /**
   * Why {@code current} may be taken over; throws {@link CheckpointInUseException} if it may not.
   */
  private static String takeOverReason(ObjectStore store, String pipelineId, Current current)
      throws IOException {
    Lease held = current.lease();
    if (held.released()) {
      return held.brokenEpoch().isPresent()
          ? "broken at " + held.releasedAt().get()
          : "released at " + held.releasedAt().get();
    }
    LeaseOwner owner = held.owner();
    if (TAKEN_HERE.contains(owner.id()) && !HELD_HERE.contains(owner.id())) {
      return "an earlier run of this process ended without releasing it";
    }
    if (LocalProcess.current()
        .isGone(owner.pid(), owner.processStartedAt(), owner.bootId(), owner.pidNamespace())) {
      return "its process is gone";
    }
    // The file's time now, not the listing's: a renewal may have landed since.
    Instant written = store.stat(current.key()).map(ObjectInfo::lastModified).orElse(Instant.MIN);
    Instant storeNow = storeTime(store);
    Instant expiresAt = written.plus(held.duration());
    if (!storeNow.isBefore(expiresAt)) {
      return "not renewed since " + written + ", expired at " + expiresAt;
    }
    throw CheckpointErrors.inUse(
        pipelineId, store.location(), held, expiresAt, Duration.between(storeNow, expiresAt));
  }

  /** The store's time now: the modification time of an object written just now. */
  private static Instant storeTime(ObjectStore store) throws IOException {
    store.put(CLOCK_KEY, "time probe of the lease protocol\n".getBytes(StandardCharsets.UTF_8));
    return store
        .stat(CLOCK_KEY)
        .map(ObjectInfo::lastModified)
        .orElseThrow(
            () ->
                new IOException(
                    "Checkpoint "
                        + store.location()
                        + ": '"
                        + CLOCK_KEY
                        + "' was written but cannot be found; the store does not keep its"
                        + " writes"));
  }

  /**
   * Creates the file of {@code lease} with put-if-absent. An unknown outcome is resolved by
   * reading: our own lease there counts as created.
   */
  private static boolean create(ObjectStore store, Lease lease) throws IOException {
    String key = key(lease.epoch());
    try {
      return store.putIfAbsent(key, LeaseCodec.encode(lease));
    } catch (IOException unknown) {
      Optional<Lease> there;
      try {
        there = read(store, key);
      } catch (IOException readFailed) {
        unknown.addSuppressed(readFailed);
        throw unknown;
      }
      if (there.isEmpty()) {
        throw unknown;
      }
      return there.get().owner().id().equals(lease.owner().id());
    }
  }

  private static void deleteOldEpochs(ObjectStore store, long current) {
    try {
      for (long epoch : epochs(store)) {
        if (epoch < current - KEPT_EPOCHS) {
          store.delete(key(epoch));
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("Old lease files of {} not deleted: {}", store.location(), e.toString());
    }
  }

  /** A lease file and where it is. */
  private record Current(String key, Lease lease) {}

  private static Optional<Current> currentFile(ObjectStore store) throws IOException {
    for (int attempt = 1; ; attempt++) {
      OptionalLong highest = highestEpoch(store);
      if (highest.isEmpty()) {
        return Optional.empty();
      }
      String key = key(highest.getAsLong());
      Optional<Lease> lease = read(store, key);
      if (lease.isPresent()) {
        return Optional.of(new Current(key, lease.get()));
      }
      // Deleted between the listing and the read: only by hand; look again, a few times.
      if (attempt >= 3) {
        throw CheckpointErrors.inconsistent(
            store.location(), "'" + key + "' was listed but cannot be read");
      }
    }
  }

  private static Optional<Lease> read(ObjectStore store, String key) throws IOException {
    byte[] data;
    try {
      data = store.read(key);
    } catch (ObjectNotFoundException missing) {
      return Optional.empty();
    }
    Lease lease = LeaseCodec.decode(store.location(), key, data);
    long named = LogKeys.parse(LogKeys.LEASE_DIR, key).orElse(-1);
    if (lease.epoch() != named) {
      throw CheckpointErrors.corrupt(
          store.location(),
          key,
          "the file holds lease epoch " + lease.epoch() + " but its name says " + named);
    }
    return Optional.of(lease);
  }

  private static OptionalLong highestEpoch(ObjectStore store) throws IOException {
    List<Long> all = epochs(store);
    return all.isEmpty() ? OptionalLong.empty() : OptionalLong.of(all.get(all.size() - 1));
  }

  /**
   * Every lease epoch, ascending. Other names in the folder ({@code clock}, and the temporary names
   * some S3 servers list during a write) are not leases.
   */
  private static List<Long> epochs(ObjectStore store) throws IOException {
    List<Long> out = new ArrayList<>();
    for (ObjectInfo info : store.list(LogKeys.LEASE_DIR)) {
      LogKeys.parse(LogKeys.LEASE_DIR, info.key()).ifPresent(out::add);
    }
    out.sort(null);
    return out;
  }

  private static String key(long epoch) {
    return LogKeys.numbered(LogKeys.LEASE_DIR, epoch);
  }
}
