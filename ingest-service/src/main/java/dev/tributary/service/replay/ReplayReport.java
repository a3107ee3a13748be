package dev.tributary.service.replay;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one {@code replay-quarantine} did, for the command's output.
 *
 * @param completed an interrupted earlier run this one completed first, if any
 * @param run the run's number ({@code txn} version of both commits); 0 when nothing was selected
 * @param quarantineVersion the quarantine table version the run read
 * @param quarantineRows rows the quarantine table held at that version
 * @param selected records the run re-parsed (those {@code --where} selected)
 * @param replayed records that came through: written to the sink or dropped by a filter or an
 *     expectation, as the live pipeline would; taken out of the quarantine
 * @param rowsWritten rows the replayed records wrote to the sink
 * @param sinkVersion the sink table version committed, or -1 when nothing was committed there
 * @param failures records that still fail, grouped by their new error (error first seen first)
 * @param quarantineCommit the quarantine table version committed, or -1 when nothing changed there
 * @param lostRace true when another replay of the same pipeline committed this run's number first:
 *     this one wrote nothing, and completed the other's run instead
 */
public record ReplayReport(
    Optional<Completion> completed,
    long run,
    long quarantineVersion,
    long quarantineRows,
    long selected,
    long replayed,
    long rowsWritten,
    long sinkVersion,
    List<Failure> failures,
    long quarantineCommit,
    boolean lostRace) {
  public ReplayReport {
    failures = List.copyOf(failures);
  }

  /** Records that still fail, in total. */
  public long stillFailing() {
    return failures.stream().mapToLong(Failure::records).sum();
  }

  /**
   * Records that still fail with one error.
   *
   * @param error the new error
   * @param records how many
   * @param samples the first few, by provenance
   */
  public record Failure(String error, long records, List<RecordKey> samples) {
    public Failure {
      samples = List.copyOf(samples);
    }
  }

  /**
   * An earlier run that was interrupted after its sink commit, completed by taking its records out
   * of the quarantine.
   *
   * @param run its number
   * @param sinkVersion the sink version that holds its rows
   * @param records the records its sink commit named
   * @param quarantineCommit the quarantine version committed now, or -1 if none was needed
   */
  public record Completion(long run, long sinkVersion, long records, long quarantineCommit) {}

  /** Failures by error, from a map of error to records (in the map's order). */
  static List<Failure> failures(Map<String, List<RecordKey>> byError, int samples) {
    return byError.entrySet().stream()
        .map(
            e ->
                new Failure(
                    e.getKey(),
                    e.getValue().size(),
                    e.getValue().subList(0, Math.min(samples, e.getValue().size()))))
        .toList();
  }
}
