package dev.tributary.service.server;

import dev.tributary.checkpoint.CheckpointInUseException;
import dev.tributary.checkpoint.CheckpointMismatchException;
import dev.tributary.checkpoint.ConcurrentPipelineException;
import dev.tributary.checkpoint.LeaseLostException;
import dev.tributary.config.PipelineValidationException;
import dev.tributary.config.Secrets;
import dev.tributary.service.engine.ExpectationFailedException;
import dev.tributary.service.engine.QuarantineLimitExceededException;
import dev.tributary.service.engine.TableLostException;
import dev.tributary.service.parse.debezium.TruncateEventException;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.TableWrittenByAnotherCheckpointException;
import dev.tributary.service.registry.SchemaRegistryException;
import dev.tributary.service.sink.SinkRefusedException;
import dev.tributary.service.source.DataLossException;
import dev.tributary.service.source.NoSuchTopicException;
import dev.tributary.table.CommitConflictException;
import dev.tributary.table.TableException;
import java.util.List;

/**
 * Sorts pipeline failures into permanent (retrying cannot help: the user must act) and transient
 * (broker or store unavailable, timeouts: restart with backoff).
 */
final class Failures {
  private static final List<Class<? extends Throwable>> PERMANENT =
      List.of(
          PipelineValidationException.class,
          PipelineDefinitionException.class,
          CheckpointMismatchException.class,
          ConcurrentPipelineException.class,
          DataLossException.class,
          QuarantineLimitExceededException.class,
          // a row broke an expectation with on-violation: fail: every replay meets the same row
          ExpectationFailedException.class,
          TableWrittenByAnotherCheckpointException.class,
          // a table lost the batches the checkpoint committed: restarting would refuse it again
          TableLostException.class,
          // a database or topic refused the sink: a missing table, a row it cannot hold, a login
          SinkRefusedException.class,
          // 401/403, another 4xx, an answer that is not the registry API, an untrusted certificate:
          // the registry settings are wrong and a restart would ask the same question again.
          SchemaRegistryException.class,
          // a Debezium truncate with on-truncate: fail: every replay meets the same event
          TruncateEventException.class);

  private Failures() {}

  /**
   * True if the failure or one of its causes is of a permanent kind, or is a {@link TableException}
   * that says trying again cannot help ({@link TableException#retryable()} false: a table or log
   * that must be repaired, a source file vacuumed before it was read), other than a {@link
   * CommitConflictException} (a concurrent writer: the next attempt redoes its work and may
   * succeed). Riding out a permanent failure would only hide it behind restarts (serve) or keep
   * {@code run} waiting for its outage limit.
   */
  static boolean permanent(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      for (Class<? extends Throwable> kind : PERMANENT) {
        if (kind.isInstance(t)) {
          return true;
        }
      }
      if (t instanceof TableException table
          && !table.retryable()
          && !(t instanceof CommitConflictException)) {
        return true;
      }
    }
    return false;
  }

  /**
   * True if the failure or one of its causes is a condition only someone else can end: another
   * process holds the pipeline's checkpoint (its lease is live, or it took the lease over from this
   * run), or a declared topic does not exist. Transient for a served pipeline, which waits for it,
   * but the end of a {@code run} that an operator started as a second process or with a misspelt
   * topic ({@link SupervisorSettings.Awaited}).
   */
  static boolean awaitable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CheckpointInUseException
          || t instanceof LeaseLostException
          || t instanceof NoSuchTopicException) {
        return true;
      }
    }
    return false;
  }

  /**
   * One readable line: the outermost message, then the causes' messages that add something, with
   * the pipeline's secrets masked: a client library's message may quote an endpoint or a property.
   */
  static String describe(Throwable failure, Secrets secrets) {
    return secrets.mask(describe(failure));
  }

  private static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (text.indexOf(message) >= 0) {
        continue;
      }
      if (!text.isEmpty()) {
        text.append(" (caused by: ");
      }
      text.append(t.getMessage() == null ? message : message.strip());
      if (t != failure) {
        text.append(")");
      }
    }
    return text.toString();
  }
}
