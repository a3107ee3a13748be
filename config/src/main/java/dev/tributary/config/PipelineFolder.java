package dev.tributary.config;

import dev.tributary.config.internal.LocationRules;
import java.nio.file.Path;
import java.util.Map;

/**
 * The checks that relate the pipelines served together from one folder ({@code serve
 * --pipelines-dir}): every sink table, quarantine table, late-events table and checkpoint belongs
 * to exactly one pipeline, so no location of one pipeline may be, contain or lie inside a location
 * of another (the rule {@code validate} applies within one pipeline, see {@link Location} for how
 * locations are compared).
 */
public final class PipelineFolder {
  private PipelineFolder() {}

  /**
   * The pipelines whose locations overlap another pipeline's, each with a message naming both
   * pipelines, their files, keys and locations, and the fix. Both pipelines of a conflict are
   * reported. Relative local paths are resolved against the process's working directory.
   *
   * @param pipelines parsed pipelines by file, in the order they are served
   * @return a message per conflicting file, in the order of {@code pipelines}; empty when none
   */
  public static Map<Path, String> conflicts(Map<Path, PipelineSpec> pipelines) {
    return LocationRules.folderConflicts(pipelines, Path.of(""));
  }
}
