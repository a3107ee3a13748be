package dev.tributary.service.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The command line's logging, configured in code (found by logback's {@code ServiceLoader} lookup
 * of {@link Configurator}s, {@code META-INF/services}): warnings and errors to stderr, Tributary's
 * own level from {@code TRIBUTARY_LOG_LEVEL} (system property or environment; WARN by default),
 * Kafka's, Parquet's and Hadoop's clients quiet, and {@link RepeatedWarnings} on Kafka's loggers.
 *
 * <p>Why code and not a {@code logback.xml}: reading the XML (Joran's SAX parsing, its model and
 * the many classes it loads) took ~0.6 s of a {@code run}'s start on this machine, a third of the
 * issue 27 budget for launch to first commit; this does the same in a few milliseconds. Serve mode
 * is unaffected: Spring Boot resets logback and loads {@code logback-serve.xml} ({@code
 * logging.config}). {@code -Dlogback.configurationFile=FILE} still wins: this configurator then
 * steps aside and logback reads that file.
 */
public final class CommandLineLogging extends ContextAwareBase implements Configurator {
  /** The pattern of every line: time, level, the logger's abbreviated name, the message. */
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n";

  /** Libraries whose own warnings say nothing a user can act on: errors only. */
  private static final Map<String, Level> LIBRARY_LEVELS =
      Map.of(
          "org.apache.kafka", Level.ERROR,
          "kafka", Level.ERROR,
          "org.apache.parquet", Level.ERROR,
          "org.apache.hadoop", Level.ERROR);

  private final UnaryOperator<String> settings;

  /** The configurator logback instantiates: settings from system properties, then environment. */
  public CommandLineLogging() {
    this(name -> System.getProperty(name, System.getenv(name)));
  }

  /**
   * A configurator reading its settings ({@code TRIBUTARY_LOG_LEVEL}, ...) from {@code settings}.
   */
  CommandLineLogging(UnaryOperator<String> settings) {
    this.settings = settings;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (settings.apply(ContextInitializer.CONFIG_FILE_PROPERTY) != null) {
      // the user named a configuration file: logback's own configurator reads it
      return ExecutionStatus.NEUTRAL;
    }
    RepeatedWarnings repeated = new RepeatedWarnings();
    repeated.setContext(context);
    repeated.setLoggerPrefix("org.apache.kafka");
    repeated.setInterval("1 minute");
    repeated.start();
    context.addTurboFilter(repeated);

    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();

    context.getLogger("dev.tributary").setLevel(ownLevel());
    LIBRARY_LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(stderr);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** {@code TRIBUTARY_LOG_LEVEL} (DEBUG, INFO, WARN, ...); WARN when unset or not a level. */
  Level ownLevel() {
    String level = settings.apply("TRIBUTARY_LOG_LEVEL");
    return level == null ? Level.WARN : Level.toLevel(level.strip(), Level.WARN);
  }
}
