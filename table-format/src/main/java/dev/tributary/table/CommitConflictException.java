package dev.tributary.table;

/**
 * A concurrent commit changed the table in a way our commit cannot be reconciled with (a schema or
 * protocol change, a file we remove was removed by someone else). Not retryable as is: the caller
 * must re-read the table and redo its work. Nothing of ours was committed.
 */
public class CommitConflictException extends TableException {

  public CommitConflictException(String message) {
    super(message);
  }
}
