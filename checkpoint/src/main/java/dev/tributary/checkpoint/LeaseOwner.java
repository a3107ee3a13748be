package dev.tributary.checkpoint;

import dev.tributary.checkpoint.internal.LocalProcess;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Who holds (or held) a checkpoint lease: a random id per lease holder, and the process it runs in,
 * so that an operator can find it and a later start on the same machine can tell that it is gone.
 *
 * @param id a random id chosen for each acquisition (two runs in one process differ by it)
 * @param host the host name of the process, as it reports it
 * @param pid the operating system's process id
 * @param processStartedAt when the process started, if the system reports it (tells a reused pid
 *     from the owner)
 * @param bootId the Linux boot id ({@code /proc/sys/kernel/random/boot_id}), if known: together
 *     with {@code pidNamespace} it says whether another process can see the owner's pid at all
 * @param pidNamespace the Linux pid namespace of the process ({@code /proc/self/ns/pid}), if known
 */
public record LeaseOwner(
    String id,
    String host,
    long pid,
    Optional<Instant> processStartedAt,
    Optional<String> bootId,
    Optional<String> pidNamespace) {

  public LeaseOwner {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(processStartedAt, "processStartedAt");
    Objects.requireNonNull(bootId, "bootId");
    Objects.requireNonNull(pidNamespace, "pidNamespace");
    if (id.isBlank()) {
      throw new IllegalArgumentException("lease owner id must not be blank");
    }
  }

  /** This process, with a new random id. */
  public static LeaseOwner thisProcess() {
    LocalProcess self = LocalProcess.current();
    return new LeaseOwner(
        UUID.randomUUID().toString(),
        self.host(),
        self.pid(),
        self.startedAt(),
        self.bootId(),
        self.pidNamespace());
  }

  /** {@code host ip-10-0-1-7, pid 4242}: how messages name the owner. */
  public String describe() {
    return "host " + host + ", pid " + pid;
  }
}
