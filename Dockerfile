# Tributary service image: a layered Spring Boot jar on a JRE, run as a non-root user.
#   docker build -t tributary .
#   docker run -v "$PWD/pipelines:/pipelines:ro" -p 8080:8080 -e TRIBUTARY_API_TOKEN=... tributary
# The default command is `serve --pipelines-dir /pipelines`; any other CLI command works too
# (`docker run tributary compact --pipeline /pipelines/orders.yaml`). See docs/OPERATIONS.md.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# Poms first: the dependency layer is rebuilt only when a pom changes.
COPY pom.xml ./
COPY storage/pom.xml storage/
COPY table-format/pom.xml table-format/
COPY checkpoint/pom.xml checkpoint/
COPY config/pom.xml config/
COPY ingest-service/pom.xml ingest-service/
COPY bench/pom.xml bench/
RUN mvn -B -q -pl ingest-service -am dependency:go-offline -DskipTests || true
COPY . .
RUN mvn -B -q -pl ingest-service -am package -DskipTests

FROM eclipse-temurin:17-jre AS layers
WORKDIR /layers
COPY --from=build /src/ingest-service/target/tributary.jar tributary.jar
# Spring Boot's layer index: dependencies change rarely, the application on every build.
RUN java -Djarmode=tools -jar tributary.jar extract --layers --launcher --destination extracted

FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 tributary \
 && useradd --system --uid 10001 --gid tributary --home-dir /app --shell /usr/sbin/nologin tributary \
 && mkdir -p /pipelines /data && chown tributary:tributary /data
WORKDIR /app
COPY --from=layers /layers/extracted/dependencies/ ./
COPY --from=layers /layers/extracted/spring-boot-loader/ ./
COPY --from=layers /layers/extracted/snapshot-dependencies/ ./
COPY --from=layers /layers/extracted/application/ ./
USER 10001:10001
# Container-aware heap: a share of the cgroup memory limit, not of the host's memory. Leave room
# for Parquet buffers and (stateful pipelines) RocksDB's native memory.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -XX:+ExitOnOutOfMemoryError -XX:+UseG1GC" \
    TRIBUTARY_DATA=/data \
    TRIBUTARY_LOG_FORMAT=json
EXPOSE 8080
# No curl in the JRE image: bash's /dev/tcp asks the liveness probe (UP while the process serves,
# whatever the pipelines' states).
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /actuator/health/liveness HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && grep -q '\"UP\"' <&3"]
# SIGTERM (docker stop) lets every pipeline finish its batch in progress: give it time with
# `docker stop -t 120` / `stop_grace_period` in compose / terminationGracePeriodSeconds.
STOPSIGNAL SIGTERM
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
CMD ["serve", "--pipelines-dir", "/pipelines"]
