package dev.tributary.service.cli;

import dev.tributary.config.Secrets;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import java.util.concurrent.Callable;

/**
 * A command's failure about one pipeline, its text already passed through {@link Secrets#mask}:
 * {@link Main} prints it as it is. It keeps no cause, so that no unmasked message travels on.
 */
final class MaskedFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  private MaskedFailure(String text, int exitCode) {
    super(text, null, false, false);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }

  /**
   * Runs the part of a command that works with a parsed pipeline; what it throws becomes a
   * MaskedFailure with the pipeline's secrets masked (exit code 2 for a definition the service
   * refuses, as {@link Main} gives it, 1 otherwise).
   */
  static <T> T masking(Secrets secrets, Callable<T> work) {
    try {
      return work.call();
    } catch (MaskedFailure | CliArguments.UsageException e) {
      throw e;
    } catch (PipelineDefinitionException e) {
      throw new MaskedFailure(secrets.mask(e.getMessage()), 2);
    } catch (Exception | Error e) {
      throw new MaskedFailure(secrets.mask(ErrorMessages.paragraph(e)), 1);
    }
  }
}
