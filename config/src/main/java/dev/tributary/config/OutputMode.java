package dev.tributary.config;

import java.util.Locale;

/** How results reach the sink ({@code output-mode}; default {@link #APPEND}). */
public enum OutputMode {
  /**
   * Rows are written once and never changed; an aggregation emits a window when the watermark
   * passes its end.
   */
  APPEND,
  /** Rows changed by a batch are written each batch, merged by key. */
  UPDATE,
  /** The whole result of an aggregation is rewritten each batch. */
  COMPLETE;

  /** Returns the name as written in files, e.g. {@code append}. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }
}
