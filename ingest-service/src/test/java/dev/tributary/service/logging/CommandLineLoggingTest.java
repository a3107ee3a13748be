package dev.tributary.service.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class CommandLineLoggingTest {

  private static LoggerContext configured(Map<String, String> settings, ExecutionStatus expected) {
    LoggerContext context = new LoggerContext();
    CommandLineLogging logging = new CommandLineLogging(settings::get);
    logging.setContext(context);
    assertThat(logging.configure(context)).isEqualTo(expected);
    return context;
  }

  @Test
  void warningsGoToStderrAndLibrariesStayQuiet() {
    LoggerContext context = configured(Map.of(), ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.WARN);
    Appender<?> appender = root.getAppender("STDERR");
    assertThat(appender).isInstanceOf(ConsoleAppender.class);
    assertThat(((ConsoleAppender<?>) appender).getTarget()).isEqualTo("System.err");
    assertThat(appender.isStarted()).isTrue();
    assertThat(context.getLogger("dev.tributary.service.engine.Engine").getEffectiveLevel())
        .isEqualTo(Level.WARN);
    assertThat(context.getLogger("org.apache.kafka.clients.NetworkClient").getEffectiveLevel())
        .isEqualTo(Level.ERROR);
    assertThat(context.getLogger("org.apache.parquet.hadoop.ParquetWriter").getEffectiveLevel())
        .isEqualTo(Level.ERROR);
    assertThat(context.getTurboFilterList()).singleElement().isInstanceOf(RepeatedWarnings.class);
  }

  @Test
  void tributaryLevelComesFromTheSetting() {
    LoggerContext info =
        configured(
            Map.of("TRIBUTARY_LOG_LEVEL", "info"), ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    assertThat(info.getLogger("dev.tributary.x").getEffectiveLevel()).isEqualTo(Level.INFO);
    LoggerContext nonsense =
        configured(
            Map.of("TRIBUTARY_LOG_LEVEL", "chatty"), ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    assertThat(nonsense.getLogger("dev.tributary.x").getEffectiveLevel()).isEqualTo(Level.WARN);
  }

  @Test
  void aNamedConfigurationFileWins() {
    LoggerContext context =
        configured(Map.of("logback.configurationFile", "my-logback.xml"), ExecutionStatus.NEUTRAL);
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext())
        .isFalse();
    assertThat(context.getTurboFilterList()).isEmpty();
  }

  @Test
  void logbackFindsItAsAService() {
    // this JVM's logging was configured by it: nothing else installs the filter on the command line
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertThat(context.getTurboFilterList()).anyMatch(f -> f instanceof RepeatedWarnings);
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNotNull();
  }
}
