package dev.tributary.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The versions of one key in a table that keeps its history ({@code history: scd2}, docs/DESIGN.md
 * "Upsert", "History"), and what a batch's changes make of them. Pure: no I/O.
 *
 * <p>A key's history is a timeline of events: an upsert at instant t (the key holds the row from t
 * on) and a delete at t (the key holds nothing from t on). The table stores it as versions, one row
 * each, valid over {@code [_valid_from, _valid_to)}: an upsert starts a version that the next event
 * of the key ends ({@code _valid_to} = that event's instant); the last version of a key that is not
 * deleted has {@code _valid_to} null and {@code _is_current} true. {@link #plan} decodes the stored
 * versions back into the timeline (a version's end that is not the next version's start is a
 * delete), adds the batch's events wherever their instants fall, and encodes the timeline again.
 * The difference is the plan: the stored rows that change (removed) and the rows to write (added).
 * So a change newer than every version closes the current one and opens the next; several changes
 * in a batch become a chain; a late change splits the version it falls into; a delete closes the
 * version it falls into without opening one.
 *
 * <p>Duplicates: an event at an instant where the timeline already holds an event of the same kind
 * (stored, or earlier in the batch: the caller gives them in stream order) is ignored: a replay or
 * a re-emitted change, and the first version at an instant stands, whether or not the two fell in
 * one batch (so the history does not depend on where batches end). An event of the other kind at
 * that instant replaces it: it came later in the stream (a delete at the instant of an upsert
 * erases that version). A delete at an instant when the key holds nothing changes nothing and is
 * not kept.
 *
 * <p>A delete placed {@code NOT_BEFORE_LATEST} (a Kafka tombstone, placed by its Kafka timestamp,
 * which another clock than {@code sequence-by}'s sets) takes effect at the latest instant of the
 * stored history if its own is earlier: it deletes what the key holds at its place in the stream,
 * never an earlier version (lifted past the latest stored version's start, it ends that version one
 * microsecond after it began rather than erase it).
 *
 * <p>Instants are microseconds since the epoch (a timestamp's {@link MergeSpec#sequenceValue}).
 */
final class VersionHistory {
  /** The end of a version that is current: valid until further notice. */
  static final long OPEN = Long.MAX_VALUE;

  private final int validFrom;
  private final int validTo;
  private final int isCurrent;

  /** A stored or planned version: its row (table layout) and its validity {@code [from, to)}. */
  record Version(Object[] row, long from, long to) {
    boolean current() {
      return to == OPEN;
    }
  }

  /**
   * One change of the batch: the key holds {@code row} from {@code at} on, or nothing (delete).
   * With {@link HistoryMergeTransaction.Placement#NOT_BEFORE_LATEST} the event takes effect no
   * earlier than the latest instant of the stored history.
   */
  record Event(
      MergeTransaction.Kind kind,
      Object[] row,
      long at,
      HistoryMergeTransaction.Placement placement) {
    Event(MergeTransaction.Kind kind, Object[] row, long at) {
      this(kind, row, at, HistoryMergeTransaction.Placement.AT);
    }
  }

  /**
   * What the batch does to the key's stored versions.
   *
   * @param removed positions, in the {@code stored} list given to {@link #plan}, of the versions
   *     whose row changes (closed, split, or replaced)
   * @param added the rows to write, their history columns set
   * @param opened how many of the added rows are new versions (from the batch's upserts), the
   *     others being stored versions with a new validity
   * @param duplicates the batch's events ignored as duplicates of stored ones
   */
  record Plan(List<Integer> removed, List<Object[]> added, int opened, int duplicates) {}

  /** A timeline event: from the table (a stored version's row) or from the batch. */
  private record Entry(MergeTransaction.Kind kind, Object[] row, boolean stored) {}

  /**
   * @param validFrom the position of {@code _valid_from} in a row
   * @param validTo the position of {@code _valid_to}
   * @param isCurrent the position of {@code _is_current}
   */
  VersionHistory(int validFrom, int validTo, int isCurrent) {
    this.validFrom = validFrom;
    this.validTo = validTo;
    this.isCurrent = isCurrent;
  }

  /** A stored row as a version (a null {@code _valid_from} sorts first). */
  Version version(Object[] row) {
    Object from = row[validFrom];
    Object to = row[validTo];
    return new Version(
        row,
        from == null ? Long.MIN_VALUE : MergeSpec.sequenceValue(from),
        to == null ? OPEN : MergeSpec.sequenceValue(to));
  }

  /**
   * Plans the batch's {@code events} (in stream order) against the key's {@code stored} versions
   * (any order).
   */
  Plan plan(List<Version> stored, List<Event> events) {
    TreeMap<Long, Entry> timeline = decode(stored);
    long floor = timeline.isEmpty() ? Long.MIN_VALUE : floor(timeline.lastEntry());
    int duplicates = 0;
    List<Event> ordered = new ArrayList<>(events.size());
    for (Event e : events) {
      boolean lifted =
          e.placement() == HistoryMergeTransaction.Placement.NOT_BEFORE_LATEST && e.at() < floor;
      ordered.add(lifted ? new Event(e.kind(), e.row(), floor, e.placement()) : e);
    }
    ordered.sort(Comparator.comparingLong(Event::at)); // stable: stream order within an instant
    for (Event e : ordered) {
      Entry held = timeline.get(e.at());
      if (held != null && held.kind() == e.kind()) {
        duplicates++;
      } else {
        timeline.put(e.at(), new Entry(e.kind(), e.row(), false));
      }
    }
    List<Version> planned = encode(timeline);
    Map<Object[], Integer> storedAt = new IdentityHashMap<>();
    for (int i = 0; i < stored.size(); i++) {
      storedAt.put(stored.get(i).row(), i);
    }
    boolean[] kept = new boolean[stored.size()];
    List<Object[]> added = new ArrayList<>();
    int opened = 0;
    for (Version v : planned) {
      Integer i = storedAt.get(v.row());
      if (i != null && stored.get(i).from() == v.from() && stored.get(i).to() == v.to()) {
        kept[i] = true;
      } else {
        added.add(rowOf(v));
        opened += i == null ? 1 : 0;
      }
    }
    List<Integer> removed = new ArrayList<>();
    for (int i = 0; i < kept.length; i++) {
      if (!kept[i]) {
        removed.add(i);
      }
    }
    return new Plan(removed, added, opened, duplicates);
  }

  /**
   * The earliest instant an event placed not before the latest one can take: just after the latest
   * version's start (so that the version is not erased), or at the latest delete.
   */
  private static long floor(Map.Entry<Long, Entry> latest) {
    return latest.getValue().kind() == MergeTransaction.Kind.UPSERT
        ? latest.getKey() + 1
        : latest.getKey();
  }

  /**
   * The stored versions as a timeline: each start an upsert, each end that no start meets a delete.
   */
  private static TreeMap<Long, Entry> decode(List<Version> stored) {
    List<Version> byStart = new ArrayList<>(stored);
    byStart.sort(Comparator.comparingLong(Version::from));
    TreeMap<Long, Entry> timeline = new TreeMap<>();
    for (Version v : byStart) {
      timeline.putIfAbsent(v.from(), new Entry(MergeTransaction.Kind.UPSERT, v.row(), true));
    }
    for (int i = 0; i < byStart.size(); i++) {
      Version v = byStart.get(i);
      boolean nextStarts = i + 1 < byStart.size() && byStart.get(i + 1).from() == v.to();
      if (!v.current() && !nextStarts) {
        timeline.putIfAbsent(v.to(), new Entry(MergeTransaction.Kind.DELETE, null, true));
      }
    }
    return timeline;
  }

  /** The timeline as versions: each upsert lasts until the key's next event. */
  private static List<Version> encode(TreeMap<Long, Entry> timeline) {
    List<Version> out = new ArrayList<>();
    Object[] open = null;
    long openFrom = 0;
    for (Map.Entry<Long, Entry> e : timeline.entrySet()) {
      if (open != null) {
        out.add(new Version(open, openFrom, e.getKey()));
      }
      if (e.getValue().kind() == MergeTransaction.Kind.UPSERT) {
        open = e.getValue().row();
        openFrom = e.getKey();
      } else {
        open = null;
      }
    }
    if (open != null) {
      out.add(new Version(open, openFrom, OPEN));
    }
    return out;
  }

  /** A copy of the version's row with its history columns set. */
  private Object[] rowOf(Version v) {
    Object[] row = v.row().clone();
    row[validFrom] = instant(v.from());
    row[validTo] = v.current() ? null : instant(v.to());
    row[isCurrent] = v.current();
    return row;
  }

  /** The instant of a microsecond timestamp. */
  static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
  }
}
