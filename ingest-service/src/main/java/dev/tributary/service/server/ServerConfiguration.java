package dev.tributary.service.server;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The beans of serve mode, active when {@code tributary.pipelines-dir} is set (the {@code serve}
 * command sets it). Properties: {@code tributary.pipelines-dir}, {@code tributary.api-token}
 * (from {@code TRIBUTARY_API_TOKEN}), {@code tributary.restart.initial-backoff},
 * {@code tributary.restart.max-backoff}, {@code tributary.shutdown-timeout},
 * {@code tributary.health-timeout}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("tributary.pipelines-dir")
class ServerConfiguration {

  @Bean
  ServeSettings serveSettings(Environment env) {
    return new ServeSettings(
        Path.of(env.getRequiredProperty("tributary.pipelines-dir")),
        Optional.ofNullable(env.getProperty("tributary.api-token")),
        new Backoff(env.getProperty("tributary.restart.initial-backoff", Duration.class, Duration.ofSeconds(1)),
            env.getProperty("tributary.restart.max-backoff", Duration.class, Duration.ofMinutes(5))),
        env.getProperty("tributary.shutdown-timeout", Duration.class, Duration.ofSeconds(90)),
        env.getProperty("tributary.health-timeout", Duration.class, Duration.ofSeconds(5)));
  }

  @Bean
  Maintenance maintenance() {
    return new Maintenance();
  }

  @Bean
  ServedPipelines servedPipelines(ServeSettings settings, MeterRegistry registry, Maintenance maintenance) {
    return new ServedPipelines(settings, registry, maintenance, Clock.systemUTC());
  }

  @Bean
  WebMvcConfigurer apiToken(ServeSettings settings) {
    return new WebMvcConfigurer() {
      @Override
      public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new ApiTokenInterceptor(settings.apiToken())).addPathPatterns("/api/**");
      }
    };
  }

  @Bean
  HealthIndicator pipelinesHealthIndicator(ServedPipelines pipelines) {
    return HealthChecks.pipelines(pipelines);
  }

  @Bean
  HealthIndicator kafkaHealthIndicator(ServedPipelines pipelines, ServeSettings settings) {
    return HealthChecks.kafka(pipelines, settings.healthTimeout());
  }

  @Bean
  HealthIndicator storageHealthIndicator(ServedPipelines pipelines, ServeSettings settings) {
    return HealthChecks.storage(pipelines, settings.healthTimeout());
  }
}
