package dev.tributary.config.internal;

import dev.tributary.config.BackfillSpec;
import dev.tributary.config.CompactionSpec;
import dev.tributary.config.Durations;
import dev.tributary.config.MaintenanceSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.VacuumSpec;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/** Reads when things run: {@code trigger}, {@code maintenance} and {@code backfill}. */
final class ScheduleReader {

  private final YamlNodes nodes;
  private final QueryReader durations;

  ScheduleReader(YamlNodes nodes, QueryReader durations) {
    this.nodes = nodes;
    this.durations = durations;
  }

  TriggerSpec trigger(YamlMap root) {
    Node node = root.optional("trigger").orElse(null);
    if (node == null) {
      return TriggerSpec.DEFAULT;
    }
    YamlMap map = nodes.map(node, "trigger", "trigger");
    if (map == null) {
      return null;
    }
    List<String> kinds = map.present(Keys.SECTIONS.get("trigger"));
    Node interval = map.optional("processing-time").orElse(null);
    Node availableNow = map.optional("available-now").orElse(null);
    Node once = map.optional("once").orElse(null);
    Node continuous = map.optional("continuous").orElse(null);
    map.finish();
    if (kinds.isEmpty() && map.hasOtherKeys(kinds)) {
      return null; // only unknown keys, reported by finish() with a suggestion
    }
    if (kinds.size() != 1) {
      nodes.fail(node, "trigger", Messages.triggerKind(kinds));
      return null;
    }
    if (interval != null) {
      Duration duration = durations.positiveDuration(interval, "trigger.processing-time");
      return duration == null ? null : new TriggerSpec.ProcessingTime(duration);
    }
    if (continuous != null) {
      Duration duration = durations.positiveDuration(continuous, "trigger.continuous");
      return duration == null ? null : new TriggerSpec.Continuous(duration);
    }
    Node flag = availableNow != null ? availableNow : once;
    if (flag == null) {
      nodes.fail(node, "trigger", Messages.triggerKind(kinds));
      return null;
    }
    String key = availableNow != null ? "available-now" : "once";
    Boolean value = nodes.bool(flag, "trigger." + key);
    if (Boolean.FALSE.equals(value)) {
      nodes.fail(flag, "trigger." + key, Messages.triggerFalse(key));
      return null;
    }
    if (value == null) {
      return null;
    }
    return availableNow != null ? new TriggerSpec.AvailableNow() : new TriggerSpec.Once();
  }

  MaintenanceSpec maintenance(YamlMap root) {
    Node node = root.optional("maintenance").orElse(null);
    if (node == null) {
      return MaintenanceSpec.DEFAULT;
    }
    YamlMap map = nodes.map(node, "maintenance", "maintenance");
    if (map == null) {
      return null;
    }
    Optional<CompactionSpec> compaction =
        map.read("compaction", n -> compaction(n).map(Optional::of).orElse(null), Optional.empty());
    Optional<VacuumSpec> vacuum =
        map.read("vacuum", n -> vacuum(n).map(Optional::of).orElse(null), Optional.empty());
    Long interval =
        map.read(
            "log-checkpoint-interval",
            n -> nodes.integer(n, "maintenance.log-checkpoint-interval", 1),
            (long) MaintenanceSpec.DEFAULT_LOG_CHECKPOINT_INTERVAL);
    map.finish();
    if (compaction == null || vacuum == null || interval == null) {
      return null;
    }
    if (interval > Integer.MAX_VALUE) {
      nodes
          .problems()
          .atValue(
              "maintenance.log-checkpoint-interval",
              Messages.tooLarge(interval.toString(), Integer.MAX_VALUE));
      return null;
    }
    return new MaintenanceSpec(compaction, vacuum, interval.intValue());
  }

  private Optional<CompactionSpec> compaction(Node node) {
    YamlMap map = nodes.map(node, "maintenance.compaction", "maintenance.compaction");
    if (map == null) {
      return Optional.empty();
    }
    String schedule = schedule(map, "\"0 0 * * * *\"");
    Long minFiles =
        map.read(
            "min-files",
            n -> nodes.integer(n, "maintenance.compaction.min-files", 2),
            (long) CompactionSpec.DEFAULT_MIN_FILES);
    map.finish();
    if (schedule == null || minFiles == null) {
      return Optional.empty();
    }
    return Optional.of(new CompactionSpec(schedule, (int) Math.min(minFiles, Integer.MAX_VALUE)));
  }

  private Optional<VacuumSpec> vacuum(Node node) {
    YamlMap map = nodes.map(node, "maintenance.vacuum", "maintenance.vacuum");
    if (map == null) {
      return Optional.empty();
    }
    String schedule = schedule(map, "\"0 0 3 * * *\"");
    Duration retention =
        map.read(
            "retention",
            n -> durations.positiveDuration(n, "maintenance.vacuum.retention"),
            VacuumSpec.DEFAULT_RETENTION);
    Boolean check =
        map.read(
            "retention-check",
            n -> nodes.bool(n, "maintenance.vacuum.retention-check"),
            Boolean.TRUE);
    map.finish();
    if (schedule == null || retention == null || check == null) {
      return Optional.empty();
    }
    if (check && VacuumSpec.belowFloor(retention)) {
      // Only a declared retention can be under the floor: the default is the floor itself.
      nodes
          .problems()
          .atValue(
              "maintenance.vacuum.retention",
              Messages.retentionBelowFloor(
                  Durations.format(retention), Durations.format(VacuumSpec.MINIMUM_RETENTION)));
      return Optional.empty();
    }
    return Optional.of(new VacuumSpec(schedule, retention, check));
  }

  /** Returns the declared backfill, or null when absent or invalid. */
  BackfillSpec backfill(YamlMap root) {
    Node node = root.optional("backfill").orElse(null);
    YamlMap map = node == null ? null : nodes.map(node, "backfill", "backfill");
    if (map == null) {
      return null;
    }
    String schedule = schedule(map, "\"0 0 2 * * *\"");
    map.finish();
    return schedule == null ? null : new BackfillSpec(schedule);
  }

  private String schedule(YamlMap map, String example) {
    Node node = map.required("schedule", "schedule: " + example);
    String text =
        node == null ? null : nodes.nonEmptyText(node, map.child("schedule"), "the schedule");
    if (text == null) {
      return null;
    }
    return nodes.convertText(
        node,
        map.child("schedule"),
        text,
        t -> {
          Cron.check(t);
          return t.strip();
        });
  }
}
