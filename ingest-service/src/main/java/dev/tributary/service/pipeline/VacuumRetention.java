package dev.tributary.service.pipeline;

import dev.tributary.config.Durations;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.VacuumSpec;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention every vacuum of a pipeline's table uses: the {@code vacuum} command, the REST
 * endpoint and the schedule all take it from here. A retention under Delta's 7-day floor exists
 * only when the pipeline declares {@code maintenance.vacuum.retention-check: false} (a {@link
 * VacuumSpec} refuses it otherwise); each vacuum with it logs a warning, so the choice stays
 * visible in the logs and not only in the file.
 */
public final class VacuumRetention {
  private static final Logger LOG = LoggerFactory.getLogger(VacuumRetention.class);

  private VacuumRetention() {}

  /** The declared retention (7 days by default); warns when it is under the floor. */
  public static Duration of(PipelineSpec spec) {
    VacuumSpec vacuum = spec.maintenance().vacuum().orElse(null);
    if (vacuum == null) {
      return VacuumSpec.DEFAULT_RETENTION;
    }
    if (vacuum.unsafeRetention()) {
      LOG.warn(spec.secrets().mask(unsafe(spec, vacuum.retention())));
    }
    return vacuum.retention();
  }

  static String unsafe(PipelineSpec spec, Duration retention) {
    return "Vacuum of pipeline "
        + spec.id()
        + " (table "
        + spec.sink().path()
        + ") uses a retention of "
        + Durations.format(retention)
        + ", under the minimum of "
        + Durations.format(VacuumSpec.MINIMUM_RETENTION)
        + ", because maintenance.vacuum.retention-check is false: a file a batch in progress has written but not"
        + " committed, or one an older snapshot being read uses, is deleted once it is older than that.";
  }
}
