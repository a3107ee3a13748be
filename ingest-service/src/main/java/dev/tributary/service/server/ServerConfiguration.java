package dev.tributary.service.server;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The beans of serve mode, active when {@code tributary.pipelines-dir} is set (the {@code serve}
 * command sets it). Properties: {@code tributary.pipelines-dir}, {@code tributary.api-token} (from
 * {@code TRIBUTARY_API_TOKEN}), {@code tributary.restart.initial-backoff}, {@code
 * tributary.restart.max-backoff}, {@code tributary.shutdown-timeout}, {@code
 * tributary.health-timeout}, {@code tributary.health-cache}, {@code tributary.stall-after} (see
 * docs/OPERATIONS.md). Access to the endpoints: {@link ApiAccessFilter}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("tributary.pipelines-dir")
class ServerConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(ServerConfiguration.class);

  @Bean
  ServeSettings serveSettings(Environment env) {
    return new ServeSettings(
        Path.of(env.getRequiredProperty("tributary.pipelines-dir")),
        Optional.ofNullable(env.getProperty("tributary.api-token")),
        new Backoff(
            env.getProperty(
                "tributary.restart.initial-backoff", Duration.class, Duration.ofSeconds(1)),
            env.getProperty(
                "tributary.restart.max-backoff", Duration.class, Duration.ofMinutes(5))),
        env.getProperty("tributary.shutdown-timeout", Duration.class, Duration.ofSeconds(90)),
        env.getProperty("tributary.health-timeout", Duration.class, Duration.ofSeconds(5)),
        env.getProperty("tributary.health-cache", Duration.class, Duration.ofSeconds(5)),
        env.getProperty(
            "tributary.stall-after", Duration.class, SupervisorSettings.DEFAULT_STALL_AFTER));
  }

  @Bean
  Maintenance maintenance() {
    return new Maintenance();
  }

  @Bean
  ServedPipelines servedPipelines(
      ServeSettings settings, MeterRegistry registry, Maintenance maintenance) {
    return new ServedPipelines(settings, registry, maintenance, Clock.systemUTC());
  }

  @Bean(destroyMethod = "close")
  BackfillJobs backfillJobs(ServeSettings settings) {
    return new BackfillJobs(Clock.systemUTC(), settings.shutdownTimeout());
  }

  @Bean
  TableViews tableViews() {
    return new TableViews();
  }

  @Bean(destroyMethod = "close")
  RetryMetrics retryMetrics(MeterRegistry registry) {
    return new RetryMetrics(registry);
  }

  @Bean(destroyMethod = "close")
  ConsumerGroups consumerGroups(ServeSettings settings) {
    return new ConsumerGroups(
        settings.healthTimeout(), settings.healthCacheFor(), System::nanoTime, Clock.systemUTC());
  }

  @Bean
  FilterRegistrationBean<ApiAccessFilter> apiAccess(ServeSettings settings) {
    if (settings.apiToken().isEmpty()) {
      LOG.warn(ServerMessages.noTokenWarning());
    }
    FilterRegistrationBean<ApiAccessFilter> registration =
        new FilterRegistrationBean<>(new ApiAccessFilter(settings.apiToken()));
    registration.addUrlPatterns("/*");
    registration.setName("tributaryApiAccess");
    return registration;
  }

  @Bean(destroyMethod = "close")
  HealthChecks healthChecks(
      ServedPipelines pipelines, ServeSettings settings, MeterRegistry registry) {
    return new HealthChecks(pipelines, settings, registry, System::nanoTime);
  }

  @Bean
  HealthIndicator pipelinesHealthIndicator(HealthChecks checks) {
    return checks.pipelines();
  }

  @Bean
  HealthIndicator kafkaHealthIndicator(HealthChecks checks) {
    return checks.kafka();
  }

  @Bean
  HealthIndicator storageHealthIndicator(HealthChecks checks) {
    return checks.storage();
  }

  @Bean
  HealthIndicator sourceTablesHealthIndicator(HealthChecks checks) {
    return checks.sourceTables();
  }
}
