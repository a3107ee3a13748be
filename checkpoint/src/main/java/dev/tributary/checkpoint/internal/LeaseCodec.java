package dev.tributary.checkpoint.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.checkpoint.CorruptCheckpointException;
import dev.tributary.checkpoint.Lease;
import dev.tributary.checkpoint.LeaseOwner;
import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * JSON mapping of {@code lease/<epoch>} files, in the envelope of every checkpoint log file (see
 * {@link VersionedFile}). Written by hand so the format is fixed here and in {@code
 * docs/CHECKPOINT_FORMAT.md}; optional fields are omitted when empty. {@code expiresAt} is written
 * for people reading the file and ignored when reading (it is {@code renewedAt + duration}).
 */
public final class LeaseCodec {
  private LeaseCodec() {}

  public static byte[] encode(Lease lease) {
    ObjectNode root = VersionedFile.newObject();
    root.put("epoch", lease.epoch());
    root.put("pipelineId", lease.pipelineId());
    LeaseOwner owner = lease.owner();
    ObjectNode o = root.putObject("owner");
    o.put("id", owner.id());
    o.put("host", owner.host());
    o.put("pid", owner.pid());
    owner.processStartedAt().ifPresent(t -> o.put("processStartedAt", t.toString()));
    owner.bootId().ifPresent(b -> o.put("bootId", b));
    owner.pidNamespace().ifPresent(n -> o.put("pidNamespace", n));
    root.put("acquiredAt", lease.acquiredAt().toString());
    root.put("renewedAt", lease.renewedAt().toString());
    root.put("expiresAt", lease.expiresAt().toString());
    root.put("duration", lease.duration().toString());
    lease.releasedAt().ifPresent(t -> root.put("releasedAt", t.toString()));
    lease.brokenEpoch().ifPresent(e -> root.put("brokenEpoch", e));
    return VersionedFile.encode(root);
  }

  public static Lease decode(String location, String key, byte[] data)
      throws CorruptCheckpointException {
    JsonFields f = new JsonFields(location, key, VersionedFile.decode(location, key, data));
    JsonFields o = f.nested("owner", f.object("owner"));
    String durationText = f.text("duration");
    Duration duration;
    try {
      duration = Duration.parse(durationText);
    } catch (DateTimeParseException e) {
      throw f.error("duration", "should be an ISO-8601 duration like PT30S, found " + durationText);
    }
    try {
      LeaseOwner owner =
          new LeaseOwner(
              o.text("id"),
              o.text("host"),
              o.longValue("pid"),
              o.optionalInstant("processStartedAt"),
              o.optionalText("bootId"),
              o.optionalText("pidNamespace"));
      return new Lease(
          f.longValue("epoch"),
          f.text("pipelineId"),
          owner,
          f.instant("acquiredAt"),
          f.instant("renewedAt"),
          duration,
          f.optionalInstant("releasedAt"),
          f.optionalLong("brokenEpoch"));
    } catch (IllegalArgumentException invalid) {
      throw f.invalid("lease", invalid);
    }
  }
}
