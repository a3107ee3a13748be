package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.CheckpointLease;
import dev.tributary.checkpoint.Lease;
import dev.tributary.checkpoint.LeaseLostException;
import dev.tributary.checkpoint.LeaseSettings;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tributary break-lease}: frees a checkpoint whose owner cannot release it. */
class BreakLeaseCommandTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  private int run(String... args) {
    return cli.run(args);
  }

  private Path pipeline(String assignment) throws Exception {
    Path file = dir.resolve("orders.yaml");
    Files.writeString(
        file,
        """
        pipeline: orders-raw
        source:
          kafka:
            bootstrap-servers: localhost:9092
            topics: [orders]
            assignment: %s
        format:
          json:
            schema:
              order_id: string
        sink:
          delta:
            path: %s
        checkpoint: %s
        """
            .formatted(assignment, dir.resolve("tables/orders"), dir.resolve("checkpoint")));
    return file;
  }

  @Test
  void breaksALiveLeaseSoTheNextStartTakesOverAtOnceAndTheOwnerIsFenced() throws Exception {
    Path file = pipeline("exclusive");
    try (ObjectStore store = ObjectStores.open(dir.resolve("checkpoint").toString(), null);
        CheckpointLease owner =
            CheckpointLease.acquire(store, "orders-raw", LeaseSettings.defaults())) {
      Lease held = owner.lease();

      assertThat(run("break-lease", "--pipeline", file.toString())).as(cli.err()).isZero();

      assertThat(cli.out())
          .isEqualTo(
              "Broke the lease of checkpoint "
                  + dir.resolve("checkpoint")
                  + " held by "
                  + held.owner().describe()
                  + " since "
                  + held.acquiredAt()
                  + " (epoch 0). The next start of pipeline orders-raw takes the checkpoint over"
                  + " at once; if that process still runs, it stops at its next checkpoint write"
                  + " without writing.\n");
      assertThatThrownBy(owner::checkHeld)
          .isInstanceOf(LeaseLostException.class)
          .hasMessageContaining("its lease was broken with break-lease");
      try (CheckpointLease next =
          CheckpointLease.acquire(store, "orders-raw", LeaseSettings.defaults())) {
        assertThat(next.lease().epoch()).isEqualTo(2);
      }
    }
  }

  @Test
  void saysSoWhenThereIsNothingToBreak() throws Exception {
    Path file = pipeline("exclusive");
    assertThat(run("break-lease", "--pipeline", file.toString())).isZero();
    assertThat(cli.out())
        .contains("has no lease in force (none taken, or released): a start takes it over at once");

    cli.reset();
    Files.writeString(file, Files.readString(file).replace("exclusive", "group"));
    assertThat(run("break-lease", "--pipeline", file.toString())).isZero();
    assertThat(cli.out())
        .contains("uses source.kafka.assignment: group")
        .contains("hold no lease, so there is nothing to break");
  }
}
