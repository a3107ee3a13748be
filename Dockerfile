# Tributary service image: a layered Spring Boot jar on a JRE, run as a non-root user.
#   docker build -t tributary .
#   docker run -v "$PWD/pipelines:/pipelines:ro" -p 127.0.0.1:8080:8080 -e TRIBUTARY_API_TOKEN=... tributary
# The default command is `serve --pipelines-dir /pipelines`; any other CLI command works too
# (`docker run tributary compact --pipeline /pipelines/orders.yaml`). See docs/OPERATIONS.md.
#
# Base images are pinned by digest (reproducible, tamper-evident builds): the multi-platform image
# indexes of the official images as published in September 2026 (JDK/JRE 17.0.20+8), taken from the
# Docker Official Images' repo-info records. To move to newer ones, override or update these
# (docs/OPERATIONS.md, "Pinning the base images").
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17@sha256:42a3ac393abbc64dae6c96703e5ead2e921fe9103371ac58b5b404b0d6a26502
ARG JRE_IMAGE=eclipse-temurin:17-jre@sha256:c6f2875c05ea10f16398bdc5f73405c384991506f2f1ead8bcc6582ae8adea79

FROM ${BUILD_IMAGE} AS build
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

FROM ${JRE_IMAGE} AS layers
WORKDIR /layers
COPY --from=build /src/ingest-service/target/tributary.jar tributary.jar
# Spring Boot's layer index: dependencies change rarely, the application on every build.
RUN java -Djarmode=tools -jar tributary.jar extract --layers --launcher --destination extracted

FROM ${JRE_IMAGE}
RUN groupadd --system --gid 10001 tributary \
 && useradd --system --uid 10001 --gid tributary --home-dir /app --shell /usr/sbin/nologin tributary \
 && mkdir -p /pipelines /data && chown tributary:tributary /data
WORKDIR /app
COPY --from=layers /layers/extracted/dependencies/ ./
COPY --from=layers /layers/extracted/spring-boot-loader/ ./
COPY --from=layers /layers/extracted/snapshot-dependencies/ ./
COPY --from=layers /layers/extracted/application/ ./
COPY deploy/docker/entrypoint.sh /app/entrypoint.sh
RUN chmod 0755 /app/entrypoint.sh
USER 10001:10001
# Container-aware heap: a share of the cgroup memory limit, not of the host's memory. Leave room
# for Parquet buffers and (stateful pipelines) RocksDB's native memory. Without a memory limit the
# entrypoint sizes the JVM as if it had TRIBUTARY_MEMORY_WITHOUT_LIMIT (2g): a small footprint on a
# large host without tuning. More for a large-state pipeline: a larger limit (--memory 8g), or
# TRIBUTARY_JAVA_OPTS=-Xmx6g; see docs/OPERATIONS.md.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=60 -XX:+ExitOnOutOfMemoryError -XX:+UseG1GC" \
    TRIBUTARY_MEMORY_WITHOUT_LIMIT=2g \
    TRIBUTARY_PORT=8080 \
    TRIBUTARY_DATA=/data \
    TRIBUTARY_LOG_FORMAT=json
# The port serve listens on is TRIBUTARY_PORT (or SERVER_PORT, which Spring prefers); the health
# check follows it. Change the port through these variables, not with `serve --port`, so it does.
EXPOSE 8080
# No curl in the JRE image: bash's /dev/tcp asks the liveness probe (UP while the process serves,
# whatever the pipelines' states; it needs no token).
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${SERVER_PORT:-${TRIBUTARY_PORT:-8080}} && printf 'GET /actuator/health/liveness HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && grep -q '\"UP\"' <&3"]
# SIGTERM (docker stop) lets every pipeline finish its batch in progress: give it time with
# `docker stop -t 120` / `stop_grace_period` in compose / terminationGracePeriodSeconds.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/entrypoint.sh"]
CMD ["serve", "--pipelines-dir", "/pipelines"]
