package dev.tributary.checkpoint;

/**
 * Judges whether a change of one part of a checkpoint's identity leaves the checkpoint usable, so
 * that the start goes on and records the new identity (see {@link Checkpoint#open(
 * dev.tributary.storage.ObjectStore, String, java.util.Map, CompatibleChange)}).
 */
@FunctionalInterface
public interface CompatibleChange {
  /**
   * @param part the identity part's name, e.g. {@code format.schema}
   * @param recorded its value in the checkpoint, or null if absent there
   * @param declared its value now, or null if absent now
   */
  boolean compatible(String part, String recorded, String declared);
}
