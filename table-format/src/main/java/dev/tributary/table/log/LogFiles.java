package dev.tributary.table.log;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Names of the files in {@code _delta_log/} and how to recognize them. */
public final class LogFiles {
  /** The log directory, as a key prefix. */
  public static final String LOG_DIR = "_delta_log/";

  /** Pointer to the newest checkpoint. */
  public static final String LAST_CHECKPOINT = LOG_DIR + "_last_checkpoint";

  private static final Pattern COMMIT = Pattern.compile("_delta_log/(\\d{20})\\.json");

  /** Where V2 checkpoints keep their sidecar files. */
  public static final String SIDECAR_DIR = LOG_DIR + "_sidecars/";

  /**
   * A classic checkpoint ({@code n.checkpoint.parquet}) or a UUID-named V2 checkpoint ({@code
   * n.checkpoint.<uuid>.json|parquet}); multi-part checkpoints do not match.
   */
  private static final Pattern CHECKPOINT =
      Pattern.compile(
          "_delta_log/(\\d{20})\\.checkpoint"
              + "(\\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?"
              + "\\.(parquet|json)");

  private LogFiles() {}

  /** {@code _delta_log/00000000000000000042.json}. */
  public static String commit(long version) {
    return String.format("%s%020d.json", LOG_DIR, version);
  }

  /**
   * {@code _delta_log/00000000000000000040.checkpoint.parquet} (classic single-file checkpoint).
   */
  public static String checkpoint(long version) {
    return String.format("%s%020d.checkpoint.parquet", LOG_DIR, version);
  }

  /** Key prefix shared by every file of one version; list after it to see that version onward. */
  static String versionPrefix(long version) {
    return String.format("%s%020d", LOG_DIR, version);
  }

  /** Version of a commit key, or -1 if the key is not a commit. */
  public static long commitVersion(String key) {
    Matcher m = COMMIT.matcher(key);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }

  /** Version of a classic or UUID-named checkpoint key, or -1 if the key is not one. */
  static long checkpointVersion(String key) {
    Matcher m = CHECKPOINT.matcher(key);
    // a JSON checkpoint is always UUID-named (V2); "n.checkpoint.json" is nothing
    boolean valid = m.matches() && (m.group(2) != null || m.group(3).equals("parquet"));
    return valid ? Long.parseLong(m.group(1)) : -1;
  }

  /** The key of a V2 checkpoint's sidecar, from the path its {@code sidecar} action holds. */
  static String sidecar(String path) {
    String decoded = PathCodec.decode(path);
    int dir = decoded.lastIndexOf("_sidecars/");
    return SIDECAR_DIR + (dir >= 0 ? decoded.substring(dir + "_sidecars/".length()) : decoded);
  }
}
