package dev.tributary.checkpoint.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * This process as a lease records it, and whether a process recorded by a lease is gone.
 *
 * <p>"Gone" is decided only where it is certain: the recorded process ran under the same Linux boot
 * ({@code boot_id}) and in the same pid namespace as this one, so its pid means the same process
 * here, and no process with that pid (and that start time) exists. In every other case (another
 * host, another container, no {@code /proc}, the start time unknown) the answer is "unknown" and
 * the lease must expire. A live namespace's identifier is unique while it exists, so a matching
 * boot id and namespace can only mean the owner's own namespace (or, if that one was destroyed, one
 * that reuses its number: then the owner is gone too).
 *
 * @param host the host name
 * @param pid this process's id
 * @param startedAt when this process started, if the system says
 * @param bootId the Linux boot id, if readable
 * @param pidNamespace the pid namespace, e.g. {@code pid:[4026531836]}, if readable
 */
public record LocalProcess(
    String host,
    long pid,
    Optional<Instant> startedAt,
    Optional<String> bootId,
    Optional<String> pidNamespace) {

  // Java derives a start time from the boot time, which Linux reports to the second and which NTP
  // may shift: two readings of one process can differ by about a second. A pid reused within this
  // margin of the owner's start is taken for the owner (the safe side: the lease then expires).
  private static final Duration SAME_START = Duration.ofSeconds(3);

  private static final LocalProcess CURRENT = read();

  /** This process. */
  public static LocalProcess current() {
    return CURRENT;
  }

  /**
   * True if a pid recorded under boot {@code otherBoot} in pid namespace {@code otherNamespace}
   * names the same process here, so that this process can check whether it still runs.
   */
  public boolean sees(Optional<String> otherBoot, Optional<String> otherNamespace) {
    return bootId.isPresent()
        && pidNamespace.isPresent()
        && bootId.equals(otherBoot)
        && pidNamespace.equals(otherNamespace);
  }

  /**
   * True only if this process can see the recorded one's pid ({@link #sees}) and no process with
   * that pid and start time runs.
   */
  public boolean isGone(
      long otherPid,
      Optional<Instant> otherStart,
      Optional<String> otherBoot,
      Optional<String> otherNamespace) {
    if (!sees(otherBoot, otherNamespace)) {
      return false;
    }
    // This very process too (another lease holder in it, e.g. a run not closed yet) is found
    // alive here, by its start time.
    Optional<ProcessHandle> handle = ProcessHandle.of(otherPid);
    if (handle.isEmpty() || !handle.get().isAlive()) {
      return true;
    }
    Optional<Instant> running = handle.get().info().startInstant();
    if (otherStart.isEmpty() || running.isEmpty()) {
      return false; // cannot tell a reused pid from the owner
    }
    return Duration.between(otherStart.get(), running.get()).abs().compareTo(SAME_START) > 0;
  }

  private static LocalProcess read() {
    ProcessHandle self = ProcessHandle.current();
    return new LocalProcess(
        hostName(),
        self.pid(),
        self.info().startInstant(),
        firstLine(Path.of("/proc/sys/kernel/random/boot_id")),
        link(Path.of("/proc/self/ns/pid")));
  }

  /**
   * The host name without a DNS lookup where possible: {@code InetAddress.getLocalHost()} can block
   * for seconds on a host whose name does not resolve.
   */
  private static String hostName() {
    Optional<String> kernel = firstLine(Path.of("/proc/sys/kernel/hostname"));
    if (kernel.isPresent()) {
      return kernel.get();
    }
    for (String variable : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
      String value = System.getenv(variable);
      if (value != null && !value.isBlank()) {
        return value.strip();
      }
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown-host";
    }
  }

  private static Optional<String> firstLine(Path file) {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      return text.isEmpty() ? Optional.empty() : Optional.of(text);
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // not Linux, or not readable: no certainty from it
    }
  }

  private static Optional<String> link(Path file) {
    try {
      return Optional.of(Files.readSymbolicLink(file).toString());
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
