package dev.tributary.checkpoint.state.internal;

import dev.tributary.checkpoint.internal.CheckpointErrors;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of one operator's state under {@code state/<operatorId>/}: {@code <v>.delta} changelogs
 * and {@code <v>.snapshot} snapshots, {@code v} zero-padded to 20 digits so listings sort
 * numerically. Plans which files load a version, and purges old ones.
 */
public final class StateFiles {
  private static final Logger LOG = LoggerFactory.getLogger(StateFiles.class);
  private static final Pattern OPERATOR_ID = Pattern.compile("[A-Za-z0-9._-]{1,200}");
  private static final Pattern NAME = Pattern.compile("(\\d{20})\\.(delta|snapshot)");

  /** Which files load one version: an optional snapshot, then changelogs in order. */
  public record LoadPlan(OptionalLong snapshot, List<Long> changelogs) {
    public LoadPlan {
      Objects.requireNonNull(snapshot, "snapshot");
      changelogs = List.copyOf(changelogs);
    }
  }

  private final ObjectStore store;
  private final String operatorId;
  private final String dir;

  public StateFiles(ObjectStore store, String operatorId) {
    this.store = Objects.requireNonNull(store, "store");
    Objects.requireNonNull(operatorId, "operatorId");
    if (!OPERATOR_ID.matcher(operatorId).matches() || operatorId.matches("\\.+")) {
      throw new IllegalArgumentException(
          "Invalid state operator id '"
              + operatorId
              + "': use 1 to 200 letters, digits, '.', '_' or '-' (not only dots)");
    }
    this.operatorId = operatorId;
    this.dir = "state/" + operatorId + "/";
  }

  public ObjectStore store() {
    return store;
  }

  public String operatorId() {
    return operatorId;
  }

  public String changelogKey(long version) {
    return dir + String.format("%020d", version) + ".delta";
  }

  public String snapshotKey(long version) {
    return dir + String.format("%020d", version) + ".snapshot";
  }

  /**
   * The files that load {@code version}: the latest snapshot at or below it, then every changelog
   * after that snapshot up to {@code version}, all of which must exist.
   *
   * @throws dev.tributary.checkpoint.CorruptCheckpointException if the version does not exist or a
   *     changelog in the chain is missing
   */
  public LoadPlan plan(long version) throws IOException {
    TreeSet<Long> snapshots = new TreeSet<>();
    TreeSet<Long> changelogs = new TreeSet<>();
    list(snapshots, changelogs);
    if (!snapshots.contains(version) && !changelogs.contains(version)) {
      long latest =
          Math.max(
              snapshots.isEmpty() ? -1 : snapshots.last(),
              changelogs.isEmpty() ? -1 : changelogs.last());
      throw CheckpointErrors.inconsistent(
          store.location(),
          "state version "
              + version
              + " of operator "
              + operatorId
              + " does not exist ("
              + (latest < 0 ? "no state files" : "the latest is " + latest)
              + " under "
              + dir
              + ")");
    }
    Long base = snapshots.floor(version);
    long from = base == null ? 0 : base + 1;
    List<Long> chain = new ArrayList<>();
    for (long v = from; v <= version; v++) {
      if (!changelogs.contains(v)) {
        throw CheckpointErrors.inconsistent(
            store.location(),
            "state version "
                + version
                + " of operator "
                + operatorId
                + " needs changelog '"
                + changelogKey(v)
                + "', which is missing"
                + (base == null
                    ? " (there is no snapshot before it)"
                    : " (after snapshot " + base + ")"));
      }
      chain.add(v);
    }
    return new LoadPlan(base == null ? OptionalLong.empty() : OptionalLong.of(base), chain);
  }

  /** True if the object exists. */
  public boolean exists(String key) throws IOException {
    return store.stat(key).isPresent();
  }

  /** Deletes every file with a version below the latest snapshot at or below {@code oldest}. */
  public int purgeBefore(long oldest) throws IOException {
    TreeSet<Long> snapshots = new TreeSet<>();
    TreeSet<Long> changelogs = new TreeSet<>();
    list(snapshots, changelogs);
    Long base = snapshots.floor(oldest);
    if (base == null) {
      return 0;
    }
    int deleted = 0;
    // Order does not matter: the snapshot at base stays, and every kept version loads from it.
    for (long v : changelogs.headSet(base)) {
      store.delete(changelogKey(v));
      deleted++;
    }
    for (long v : snapshots.headSet(base)) {
      store.delete(snapshotKey(v));
      deleted++;
    }
    return deleted;
  }

  private void list(TreeSet<Long> snapshots, TreeSet<Long> changelogs) throws IOException {
    for (ObjectInfo info : store.list(dir)) {
      Matcher m = NAME.matcher(info.key().substring(dir.length()));
      if (!m.matches()) {
        LOG.warn("Ignoring unexpected file '{}' in checkpoint {}", info.key(), store.location());
        continue;
      }
      long v;
      try {
        v = Long.parseLong(m.group(1));
      } catch (NumberFormatException tooLarge) {
        LOG.warn("Ignoring unexpected file '{}' in checkpoint {}", info.key(), store.location());
        continue;
      }
      (m.group(2).equals("delta") ? changelogs : snapshots).add(v);
    }
  }
}
