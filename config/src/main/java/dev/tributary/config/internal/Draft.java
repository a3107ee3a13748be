package dev.tributary.config.internal;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.BackfillSpec;
import dev.tributary.config.DeduplicateSpec;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.DeltaTableSpec;
import dev.tributary.config.ExpectationSpec;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.JoinSpec;
import dev.tributary.config.MaintenanceSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.QuarantineLimit;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.SinkSpec;
import dev.tributary.config.SourceSpec;
import dev.tributary.config.StorageSpec;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.TransformStep;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.WatermarkSpec;
import java.util.List;

/**
 * The parts of a pipeline as converted from the file, before the cross-part checks. A part is null
 * when it is absent or could not be converted ({@link Problems#declared} and {@link
 * Problems#brokenAt} tell which); defaults that do not depend on other parts are already applied.
 * {@link #joins} are the stream-static joins ({@code join[0]} to {@code join[k-1]}), {@link
 * #streamJoins} the stream-stream ones after them ({@code join[k]}, ...).
 */
record Draft(
    String id,
    SourceSpec source,
    FormatSpec format,
    List<TransformStep> transforms,
    List<JoinSpec> joins,
    List<StreamJoinSpec> streamJoins,
    WatermarkSpec watermark,
    DeduplicateSpec deduplicate,
    AggregateSpec aggregate,
    OutputMode outputMode,
    List<SinkSpec> sinks,
    DeltaTableSpec quarantine,
    DeltaTableSpec lateEvents,
    String checkpoint,
    TriggerSpec trigger,
    MaintenanceSpec maintenance,
    BackfillSpec backfill,
    StorageSpec storage,
    SchemaEvolutionSpec schemaEvolution,
    QuarantineLimit quarantineLimit,
    List<ExpectationSpec> expectations) {

  /** The key path of the stream join at {@code index} of {@link #streamJoins}: {@code join[k]}. */
  String streamJoinPath(int index) {
    return "join[" + ((joins == null ? 0 : joins.size()) + index) + "]";
  }

  /** The Delta table among the sinks, or null (none, or the sinks could not be read). */
  DeltaSinkSpec sink() {
    if (sinks == null) {
      return null;
    }
    return sinks.stream()
        .filter(DeltaSinkSpec.class::isInstance)
        .map(DeltaSinkSpec.class::cast)
        .findFirst()
        .orElse(null);
  }
}
