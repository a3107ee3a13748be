package dev.tributary.config.internal;

import dev.tributary.config.Location;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.StorageSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One owner per location: the sink table, the quarantine table, the late-events table and the
 * checkpoint of a pipeline never share a folder, and no one lies inside another, within one
 * pipeline and across the pipelines served together.
 *
 * <p>Why: a table's vacuum deletes every file under its folder that the table does not reference,
 * and compaction and complete-mode rewrites act on everything the table owns, so a checkpoint or
 * another table inside a table's folder loses its files after the retention period; a table inside
 * a checkpoint is deleted with it when the checkpoint is removed to start afresh. Two pipelines
 * writing one sink table are refused too: a complete-mode or update-mode pipeline rewrites rows the
 * other wrote, and one pipeline's schema change breaks the other; several topics into one table are
 * declared as one pipeline with several topics.
 */
public final class LocationRules {

  /** The keys of the locations a pipeline owns, in the order they are checked and reported. */
  static final List<String> KEYS =
      List.of("sink.delta.path", "quarantine.delta.path", "late-events.delta.path", "checkpoint");

  private LocationRules() {}

  /** A location as declared under {@code key}, and its canonical form. */
  record Declared(String key, String text, Location location) {}

  /**
   * Two locations of which {@code reported} is the one to blame: the inner one when nested, the
   * later one when equal.
   */
  record Conflict(Declared reported, Declared other) {
    boolean same() {
      return reported.location().equals(other.location());
    }
  }

  /**
   * Parses the locations (key to declared text); one that does not parse is left to the storage
   * layer.
   */
  static List<Declared> declared(Map<String, String> locations, Path workingDirectory) {
    List<Declared> out = new ArrayList<>();
    locations.forEach(
        (key, text) -> {
          try {
            out.add(new Declared(key, text, Location.parse(text, workingDirectory)));
          } catch (IllegalArgumentException e) {
            // A malformed path is reported when the service opens it, with the storage layer's
            // message.
          }
        });
    return out;
  }

  /** Every pair of overlapping locations of one pipeline, each once. */
  static List<Conflict> conflicts(List<Declared> locations) {
    List<Conflict> out = new ArrayList<>();
    for (int j = 1; j < locations.size(); j++) {
      for (int i = 0; i < j; i++) {
        conflict(locations.get(i), locations.get(j)).ifPresent(out::add);
      }
    }
    return out;
  }

  private static Optional<Conflict> conflict(Declared first, Declared second) {
    if (!first.location().overlaps(second.location())) {
      return Optional.empty();
    }
    // second is inside first, or equal to it: blame second; first inside second: blame first.
    boolean secondInner = first.location().contains(second.location());
    return Optional.of(secondInner ? new Conflict(second, first) : new Conflict(first, second));
  }

  /**
   * The message for a conflict within one pipeline, reported at {@code conflict.reported().key()}.
   */
  static String message(Conflict conflict) {
    Declared inner = conflict.reported();
    Declared outer = conflict.other();
    String sibling = sibling(outer, inner);
    if (conflict.same()) {
      return Messages.sameLocation(
          inner.key(),
          inner.text(),
          outer.key(),
          outer.text(),
          inner.location().toString(),
          sibling);
    }
    return Messages.nestedLocation(
        inner.key(), inner.text(), outer.key(), outer.text(), reason(outer), sibling);
  }

  /** The locations a parsed pipeline owns, by key, in {@link #KEYS} order. */
  static Map<String, String> locations(PipelineSpec spec) {
    Map<String, String> out = new LinkedHashMap<>();
    // a routed sink owns the folder of its tables
    spec.deltaSink().ifPresent(delta -> out.put("sink.delta.path", delta.tablesFolder()));
    out.put("quarantine.delta.path", spec.quarantine().path());
    spec.lateEvents().ifPresent(l -> out.put("late-events.delta.path", l.path()));
    out.put("checkpoint", spec.checkpoint());
    return out;
  }

  /**
   * The pipelines of one folder whose locations overlap another pipeline's, each with a message
   * naming both pipelines, files, keys and locations. Both pipelines of a conflict are reported:
   * neither can be trusted to own the place. S3 locations of pipelines that declare different
   * {@code storage.s3.endpoint}s are different stores and never conflict.
   *
   * @param pipelines the parsed pipelines, by file
   * @param workingDirectory what relative local paths are resolved against
   * @return a message per conflicting file, in the order of {@code pipelines}
   */
  public static Map<Path, String> folderConflicts(
      Map<Path, PipelineSpec> pipelines, Path workingDirectory) {
    List<Map.Entry<Path, PipelineSpec>> entries = new ArrayList<>(pipelines.entrySet());
    List<List<Declared>> declared = new ArrayList<>();
    for (Map.Entry<Path, PipelineSpec> e : entries) {
      declared.add(declared(locations(e.getValue()), workingDirectory));
    }
    Map<Path, List<String>> messages = new LinkedHashMap<>();
    for (int a = 0; a < entries.size(); a++) {
      for (int b = a + 1; b < entries.size(); b++) {
        if (!endpoint(entries.get(a).getValue()).equals(endpoint(entries.get(b).getValue()))) {
          continue;
        }
        for (Declared x : declared.get(a)) {
          for (Declared y : declared.get(b)) {
            if (x.location().overlaps(y.location())) {
              messages
                  .computeIfAbsent(entries.get(a).getKey(), k -> new ArrayList<>())
                  .add(crossMessage(entries.get(a), x, entries.get(b), y));
              messages
                  .computeIfAbsent(entries.get(b).getKey(), k -> new ArrayList<>())
                  .add(crossMessage(entries.get(b), y, entries.get(a), x));
            }
          }
        }
      }
    }
    // A message names the locations of two pipelines: mask the secrets of every pipeline in it.
    Secrets secrets =
        pipelines.values().stream().map(PipelineSpec::secrets).reduce(Secrets.NONE, Secrets::and);
    Map<Path, String> out = new LinkedHashMap<>();
    messages.forEach(
        (file, list) ->
            out.put(
                file,
                secrets.mask(
                    Messages.sharedAcrossPipelines(
                        pipelines.get(file).id(), file.toString(), list))));
    return out;
  }

  private static String crossMessage(
      Map.Entry<Path, PipelineSpec> self,
      Declared mine,
      Map.Entry<Path, PipelineSpec> other,
      Declared theirs) {
    String relation =
        mine.location().equals(theirs.location())
            ? "is the same place as"
            : theirs.location().contains(mine.location()) ? "is inside" : "contains";
    return Messages.crossPipeline(
        mine.key(),
        mine.text(),
        relation,
        other.getValue().id(),
        other.getKey().toString(),
        theirs.key(),
        theirs.text());
  }

  private static String endpoint(PipelineSpec spec) {
    return spec.storage().flatMap(StorageSpec::endpoint).orElse("");
  }

  private static String reason(Declared outer) {
    return outer.key().equals("checkpoint")
        ? "removing the checkpoint (the way to start the pipeline afresh) would delete it too"
        : "vacuum of the table at "
            + outer.text()
            + " deletes every file under it that the table does not"
            + " reference";
  }

  /**
   * A place next to {@code outer} for {@code inner}: the outer path plus a suffix naming inner's
   * role.
   */
  private static String sibling(Declared outer, Declared inner) {
    String base = outer.text().strip();
    while (base.length() > 1 && base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    String role =
        switch (inner.key()) {
          case "sink.delta.path" -> "sink";
          case "quarantine.delta.path" -> "quarantine";
          case "late-events.delta.path" -> "late";
          default -> "checkpoint";
        };
    return base + "-" + role;
  }
}
