package dev.tributary.checkpoint.internal;

import dev.tributary.checkpoint.CheckpointMetadata;
import dev.tributary.checkpoint.CompatibleChange;
import dev.tributary.checkpoint.ConcurrentPipelineException;
import dev.tributary.storage.retry.RetryPolicy;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code metadata/<version>} files: created on first start, compared on every later start, and
 * versioned when only compatible declaration parts changed. The latest version is the one in force;
 * older versions stay as the history of compatible changes.
 */
public final class MetadataLog {
  /** The identity part name used in messages for a changed pipeline id. */
  public static final String PIPELINE_ID_PART = "pipeline-id";

  private static final Logger LOG = LoggerFactory.getLogger(MetadataLog.class);

  /**
   * A lost race to write a metadata version means another process started at the same moment and
   * wrote it first: compare against what it wrote, at once. Each lost race means one more version
   * was written in between, so a few attempts are plenty.
   */
  private static final RetryPolicy RACE_RETRY =
      RetryPolicy.named("checkpoint.metadata")
          .withMaxAttempts(5)
          .retryingOn(ConcurrentPipelineException.class::isInstance);

  private MetadataLog() {}

  /**
   * The metadata in force after this start: the existing one if the identity is unchanged, a new
   * version if only parts {@code compatibleParts} accepts changed, a first version for a new
   * checkpoint.
   *
   * @throws dev.tributary.checkpoint.CheckpointMismatchException if the pipeline id or any other
   *     part changed
   */
  public static CheckpointMetadata openOrCreate(
      LogFiles files,
      int formatVersion,
      String pipelineId,
      Map<String, String> identity,
      CompatibleChange compatibleParts)
      throws IOException {
    return RACE_RETRY.call(
        attempt -> openOrCreateOnce(files, formatVersion, pipelineId, identity, compatibleParts));
  }

  /** One attempt; throws ConcurrentPipelineException if another process wrote the version first. */
  private static CheckpointMetadata openOrCreateOnce(
      LogFiles files,
      int formatVersion,
      String pipelineId,
      Map<String, String> identity,
      CompatibleChange compatibleParts)
      throws IOException {
    OptionalLong latest = files.latest(LogKeys.METADATA_DIR);
    CheckpointMetadata next;
    if (latest.isEmpty()) {
      Instant now = Instant.now();
      next =
          new CheckpointMetadata(
              formatVersion,
              1,
              pipelineId,
              now,
              now,
              identity,
              Optional.of(UUID.randomUUID().toString()));
    } else {
      String key = LogKeys.numbered(LogKeys.METADATA_DIR, latest.getAsLong());
      CheckpointMetadata current =
          files
              .read(key, EntryCodec::decodeMetadata)
              .orElseThrow(
                  () ->
                      CheckpointErrors.inconsistent(
                          files.location(), "'" + key + "' was listed but cannot be read"));
      checkFormat(files.location(), key, current, formatVersion);
      if (current.pipelineId().equals(pipelineId) && current.identity().equals(identity)) {
        return current;
      }
      checkCompatible(files.location(), current, pipelineId, identity, compatibleParts);
      next =
          new CheckpointMetadata(
              formatVersion,
              current.version() + 1,
              pipelineId,
              current.createdAt(),
              Instant.now(),
              identity,
              current.checkpointId());
      LOG.info(
          "Checkpoint {} of pipeline {}: compatible declaration change, writing metadata"
              + " version {}: {}",
          files.location(),
          pipelineId,
          next.version(),
          String.join("; ", describe(current.identity(), identity)));
    }
    String key = LogKeys.numbered(LogKeys.METADATA_DIR, next.version());
    files.create(key, EntryCodec.encode(next), next, EntryCodec::decodeMetadata);
    return next;
  }

  private static void checkFormat(
      String location, String key, CheckpointMetadata current, int formatVersion)
      throws IOException {
    if (current.formatVersion() > formatVersion) {
      throw CheckpointErrors.corrupt(
          location,
          key,
          "checkpoint layout version "
              + current.formatVersion()
              + " is newer than "
              + formatVersion
              + ", the highest this release understands: written by a newer Tributary? Upgrade"
              + " Tributary to use this checkpoint");
    }
  }

  private static void checkCompatible(
      String location,
      CheckpointMetadata current,
      String pipelineId,
      Map<String, String> identity,
      CompatibleChange compatibleParts)
      throws IOException {
    List<String> changedParts = new ArrayList<>();
    List<String> changes = new ArrayList<>();
    if (!current.pipelineId().equals(pipelineId)) {
      changedParts.add(PIPELINE_ID_PART);
      changes.add(change(PIPELINE_ID_PART, current.pipelineId(), pipelineId));
    }
    for (String part : changedParts(current.identity(), identity)) {
      if (!compatibleParts.compatible(part, current.identity().get(part), identity.get(part))) {
        changedParts.add(part);
        changes.add(change(part, current.identity().get(part), identity.get(part)));
      }
    }
    if (!changes.isEmpty()) {
      throw CheckpointErrors.mismatch(pipelineId, location, changedParts, changes);
    }
  }

  private static List<String> describe(Map<String, String> old, Map<String, String> now) {
    List<String> out = new ArrayList<>();
    for (String part : changedParts(old, now)) {
      out.add(change(part, old.get(part), now.get(part)));
    }
    return out;
  }

  private static Set<String> changedParts(Map<String, String> old, Map<String, String> now) {
    Set<String> parts = new TreeSet<>(old.keySet());
    parts.addAll(now.keySet());
    parts.removeIf(p -> Objects.equals(old.get(p), now.get(p)));
    return parts;
  }

  private static String change(String part, String from, String to) {
    return part + " changed from " + shown(from) + " to " + shown(to);
  }

  private static String shown(String value) {
    return value == null ? "(absent)" : "[" + value + "]";
  }
}
