package dev.tributary.table.stream;

/**
 * What a stream does with a commit that removes data ({@code remove} actions with {@code
 * dataChange: true}: a DELETE, an overwrite, a MERGE or UPDATE), Delta's options of the same names
 * ({@code DeltaSource.validateCommitAndDecideSkipping}). With neither, such a commit stops the
 * stream.
 *
 * <p>Delta's {@code ignoreChanges} (re-emit the rewritten files' rows) is not offered: it hands
 * downstream rows it has already seen, which a pipeline promising each row once cannot accept.
 *
 * @param ignoreDeletes skip commits that only remove files (no data-changing add), e.g. a DELETE of
 *     whole partitions; a commit that removes and adds still stops the stream
 * @param skipChangeCommits skip every commit that removes data, its added files included (the rows
 *     a MERGE or UPDATE rewrote are not read again, new rows it inserted are not read either)
 */
public record ChangeOptions(boolean ignoreDeletes, boolean skipChangeCommits) {

  /** Neither option: a commit that removes data stops the stream. */
  public static ChangeOptions strict() {
    return new ChangeOptions(false, false);
  }
}
