package dev.tributary.checkpoint;

import dev.tributary.checkpoint.internal.CheckpointErrors;
import dev.tributary.checkpoint.internal.EntryCodec;
import dev.tributary.checkpoint.internal.LogFiles;
import dev.tributary.checkpoint.internal.LogKeys;
import dev.tributary.checkpoint.internal.MetadataLog;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * One pipeline's checkpoint, on an {@link ObjectStore} rooted at the checkpoint location.
 *
 * <p>The batch lifecycle it records, in the engine's order:
 *
 * <ol>
 *   <li>{@link #recover()} at start: fresh, resume after batch N, or replay batch N.
 *   <li>{@link #writeOffsets} before batch N reads anything (write-ahead). Batch N may only be
 *       planned once batch N-1 is committed; batch ids start at 0 and have no gaps.
 *   <li>the engine reads, transforms, writes the table (with {@code txn(pipelineId, N)}) and
 *       commits its state.
 *   <li>{@link #writeCommit} for batch N: the batch is done.
 * </ol>
 *
 * <p>Both logs are written with put-if-absent: a second process running the same pipeline loses the
 * race for some batch and gets a {@link ConcurrentPipelineException}; writing an entry equal to the
 * existing one (our own retry) succeeds. A checkpoint {@linkplain #fencedBy fenced} by a {@link
 * CheckpointLease} refuses to write once another process has taken the lease over. A write whose
 * outcome the store could not report is resolved by reading the file back, so it is always safe to
 * retry the same call.
 *
 * <p>Instances are thread-safe (they hold no mutable state) but one pipeline should have one
 * writer; the class does not own the store (nor a lease it is fenced by) and does not close it.
 */
public final class Checkpoint {
  /** The checkpoint layout version this release writes and the highest it reads. */
  public static final int FORMAT_VERSION = 1;

  /** How many committed batches {@link #purge()} keeps. */
  public static final int DEFAULT_RETAINED_BATCHES = 100;

  private final LogFiles files;
  private final String pipelineId;
  private final CheckpointMetadata metadata;
  private final Optional<CheckpointLease> lease;

  private Checkpoint(
      LogFiles files,
      String pipelineId,
      CheckpointMetadata metadata,
      Optional<CheckpointLease> lease) {
    this.files = files;
    this.pipelineId = pipelineId;
    this.metadata = metadata;
    this.lease = lease;
  }

  /**
   * Opens the checkpoint, creating it on first start. Equivalent to {@link #open(ObjectStore,
   * String, Map, Set)} with no compatible parts: any change of the identity is refused.
   */
  public static Checkpoint open(ObjectStore store, String pipelineId, Map<String, String> identity)
      throws IOException {
    return open(store, pipelineId, identity, Set.of());
  }

  /**
   * Opens the checkpoint of {@code pipelineId}, creating its metadata on first start.
   *
   * <p>{@code identity} holds the declaration parts the checkpoint's contents depend on (part name
   * to canonical string, e.g. {@code "group-by" -> "customer_id"}). On later starts it is compared
   * with the recorded one: a different pipeline id, or a change of any part not in {@code
   * compatibleParts} (added, removed or changed), is refused with a {@link
   * CheckpointMismatchException} listing every such part, old value to new. If only compatible
   * parts changed, the new identity is recorded as a new metadata version and the start goes on.
   *
   * @param store the store rooted at the checkpoint location; not closed by the checkpoint
   * @throws CheckpointMismatchException if the checkpoint belongs to another pipeline or
   *     declaration
   * @throws CorruptCheckpointException if the metadata cannot be read
   * @throws IOException if the store fails
   */
  public static Checkpoint open(
      ObjectStore store,
      String pipelineId,
      Map<String, String> identity,
      Set<String> compatibleParts)
      throws IOException {
    Set<String> compatible = Set.copyOf(compatibleParts);
    return open(
        store, pipelineId, identity, (part, recorded, declared) -> compatible.contains(part));
  }

  /**
   * Opens the checkpoint as {@link #open(ObjectStore, String, Map, Set)} does, judging each changed
   * part with {@code compatible} (which sees the recorded and the declared value) rather than by
   * its name alone.
   */
  public static Checkpoint open(
      ObjectStore store,
      String pipelineId,
      Map<String, String> identity,
      CompatibleChange compatible)
      throws IOException {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(pipelineId, "pipelineId");
    if (pipelineId.isBlank()) {
      throw new IllegalArgumentException("pipelineId must not be blank");
    }
    Objects.requireNonNull(compatible, "compatible");
    LogFiles files = new LogFiles(store, pipelineId);
    CheckpointMetadata metadata =
        MetadataLog.openOrCreate(
            files, FORMAT_VERSION, pipelineId, SortedMaps.copy(identity, "identity"), compatible);
    return new Checkpoint(files, pipelineId, metadata, Optional.empty());
  }

  /**
   * This checkpoint, fenced by {@code lease}: {@link #writeOffsets}, {@link #writeCommit} and
   * {@link #purge} first check that this process still holds the lease ({@link
   * CheckpointLease#checkHeld()}, one listing) and fail with {@link LeaseLostException}, writing
   * nothing, if another process took it over. The caller keeps closing the lease.
   */
  public Checkpoint fencedBy(CheckpointLease lease) {
    return new Checkpoint(files, pipelineId, metadata, Optional.of(lease));
  }

  /** The store's location, as used in messages. */
  public String location() {
    return files.location();
  }

  /** The pipeline that owns this checkpoint. */
  public String pipelineId() {
    return pipelineId;
  }

  /** The metadata in force since {@link #open}. */
  public CheckpointMetadata metadata() {
    return metadata;
  }

  /**
   * Records the plan of batch {@code entry.batchId()} before it reads anything.
   *
   * <p>Returns normally if the entry was created or an equal entry already existed (a retry).
   *
   * @throws ConcurrentPipelineException if a different entry exists for that batch: another process
   *     runs this pipeline
   * @throws LeaseLostException if the checkpoint is {@linkplain #fencedBy fenced} and another
   *     process took its lease over (nothing is written)
   * @throws IllegalStateException if batch {@code N-1} is not committed (the caller broke the
   *     lifecycle; nothing is written)
   * @throws IOException if the store fails; the outcome was checked by reading, and the entry does
   *     not exist, so the call can be retried
   */
  public void writeOffsets(OffsetsEntry entry) throws IOException {
    long n = entry.batchId();
    String key = offsetsKey(n);
    checkLease();
    if (n > 0 && !files.exists(commitKey(n - 1)) && !files.exists(key)) {
      throw CheckpointErrors.outOfOrder(
          pipelineId,
          location(),
          "cannot plan batch " + n + " because batch " + (n - 1) + " has no commit entry");
    }
    create(key, EntryCodec.encode(entry), entry, EntryCodec::decodeOffsets);
  }

  /**
   * Records that batch {@code entry.batchId()} is done: its output is in the table and its state is
   * stored. Same create, retry, concurrency and lease rules as {@link #writeOffsets}.
   *
   * @throws IllegalStateException if the batch has no offsets entry
   */
  public void writeCommit(CommitEntry entry) throws IOException {
    long n = entry.batchId();
    checkLease();
    if (!files.exists(offsetsKey(n))) {
      throw CheckpointErrors.outOfOrder(
          pipelineId, location(), "cannot commit batch " + n + " because it has no offsets entry");
    }
    create(commitKey(n), EntryCodec.encode(entry), entry, EntryCodec::decodeCommit);
  }

  private void checkLease() throws IOException {
    if (lease.isPresent()) {
      lease.get().checkHeld();
    }
  }

  /**
   * Creates a log entry. A fenced checkpoint that meets another process's entry looks at the lease
   * again: when that process took the lease over between the check and the write, saying so is
   * clearer than the two entries.
   */
  private <T> void create(String key, byte[] data, T entry, LogFiles.Decoder<T> decoder)
      throws IOException {
    try {
      files.create(key, data, entry, decoder);
    } catch (ConcurrentPipelineException other) {
      try {
        checkLease();
      } catch (LeaseLostException lost) {
        lost.addSuppressed(other);
        throw lost;
      }
      throw other;
    }
  }

  /**
   * Decides what the engine does at start from the latest entries of both logs; see {@link
   * RecoveryPlan}. Reads two listings and at most two files.
   *
   * @throws CorruptCheckpointException if an entry cannot be read, or the logs contradict each
   *     other (a commit without offsets, a planned batch after an uncommitted one)
   */
  public RecoveryPlan recover() throws IOException {
    OptionalLong lastPlanned = files.latest(LogKeys.OFFSETS_DIR);
    OptionalLong lastCommitted = files.latest(LogKeys.COMMITS_DIR);
    if (lastPlanned.isEmpty()) {
      if (lastCommitted.isPresent()) {
        throw CheckpointErrors.inconsistent(
            location(),
            "commit entry for batch "
                + lastCommitted.getAsLong()
                + " exists but the offsets log is empty");
      }
      return new RecoveryPlan(RecoveryPlan.Action.NONE, Optional.empty(), Optional.empty());
    }
    long planned = lastPlanned.getAsLong();
    Optional<OffsetsEntry> offsets =
        Optional.of(
            offsets(planned)
                .orElseThrow(
                    () ->
                        CheckpointErrors.inconsistent(
                            location(),
                            "offsets entry for batch "
                                + planned
                                + " was listed but could not be read: was the checkpoint modified concurrently?")));
    Optional<CommitEntry> commit =
        lastCommitted.isPresent() ? commit(lastCommitted.getAsLong()) : Optional.empty();
    long committed = lastCommitted.orElse(-1);
    if (committed > planned) {
      throw CheckpointErrors.inconsistent(
          location(),
          "batch "
              + committed
              + " has a commit entry but the latest offsets entry is for batch "
              + planned);
    }
    if (committed == planned) {
      return new RecoveryPlan(RecoveryPlan.Action.RESUME, offsets, commit);
    }
    if (committed < planned - 1) {
      throw CheckpointErrors.inconsistent(
          location(),
          "batch "
              + planned
              + " was planned but batch "
              + (planned - 1)
              + " has no commit entry"
              + (committed < 0
                  ? " (no batch was ever committed)"
                  : " (the latest commit is for batch " + committed + ")"));
    }
    return new RecoveryPlan(RecoveryPlan.Action.REPLAY, offsets, commit);
  }

  /** The offsets entry with the highest batch id, or empty if no batch was ever planned. */
  public Optional<OffsetsEntry> latestOffsets() throws IOException {
    OptionalLong n = files.latest(LogKeys.OFFSETS_DIR);
    return n.isPresent() ? offsets(n.getAsLong()) : Optional.empty();
  }

  /** The commit entry with the highest batch id, or empty if no batch was ever committed. */
  public Optional<CommitEntry> latestCommit() throws IOException {
    OptionalLong n = files.latest(LogKeys.COMMITS_DIR);
    return n.isPresent() ? commit(n.getAsLong()) : Optional.empty();
  }

  /** The offsets entry of one batch, or empty if it was never written or has been purged. */
  public Optional<OffsetsEntry> offsets(long batchId) throws IOException {
    return files.read(offsetsKey(batchId), this::decodeOffsets);
  }

  /** The commit entry of one batch, or empty if it was never written or has been purged. */
  public Optional<CommitEntry> commit(long batchId) throws IOException {
    return files.read(commitKey(batchId), this::decodeCommit);
  }

  /** {@link #purge(int)} with {@link #DEFAULT_RETAINED_BATCHES}. */
  public int purge() throws IOException {
    return purge(DEFAULT_RETAINED_BATCHES);
  }

  /**
   * Deletes the offsets and commit entries of batches older than the last {@code keepLastBatches}
   * committed ones. The latest committed batch and every batch after it (an uncommitted one to
   * replay) are never deleted. Safe to interrupt: a partial purge leaves only old entries, which
   * recovery never reads.
   *
   * @param keepLastBatches how many committed batches to keep, at least 1
   * @return the number of batches whose entries were deleted
   * @throws LeaseLostException if the checkpoint is {@linkplain #fencedBy fenced} and another
   *     process took its lease over (nothing is deleted)
   */
  public int purge(int keepLastBatches) throws IOException {
    if (keepLastBatches < 1) {
      throw new IllegalArgumentException(
          "keepLastBatches must be >= 1 (the latest commit is always kept), got "
              + keepLastBatches);
    }
    checkLease();
    OptionalLong lastCommitted = files.latest(LogKeys.COMMITS_DIR);
    if (lastCommitted.isEmpty()) {
      return 0;
    }
    long firstKept = lastCommitted.getAsLong() - keepLastBatches + 1;
    Set<Long> purged = new TreeSet<>();
    // Commits first: a purge interrupted between the two never leaves an old commit entry whose
    // offsets entry is gone while a newer one still exists with it.
    for (String dir : new String[] {LogKeys.COMMITS_DIR, LogKeys.OFFSETS_DIR}) {
      for (long n : files.numbers(dir)) {
        if (n < firstKept) {
          files.delete(LogKeys.numbered(dir, n));
          purged.add(n);
        }
      }
    }
    return purged.size();
  }

  private OffsetsEntry decodeOffsets(String location, String key, byte[] data) throws IOException {
    OffsetsEntry e = EntryCodec.decodeOffsets(location, key, data);
    checkBatchId(key, e.batchId());
    return e;
  }

  private CommitEntry decodeCommit(String location, String key, byte[] data) throws IOException {
    CommitEntry e = EntryCodec.decodeCommit(location, key, data);
    checkBatchId(key, e.batchId());
    return e;
  }

  private void checkBatchId(String key, long batchId) throws CorruptCheckpointException {
    long named = LogKeys.parse(key.substring(0, key.indexOf('/') + 1), key).orElse(-1);
    if (named != batchId) {
      throw CheckpointErrors.corrupt(
          location(), key, "the file holds batch " + batchId + " but its name says batch " + named);
    }
  }

  private static String offsetsKey(long batchId) {
    return LogKeys.numbered(LogKeys.OFFSETS_DIR, batchId);
  }

  private static String commitKey(long batchId) {
    return LogKeys.numbered(LogKeys.COMMITS_DIR, batchId);
  }
}
