#!/bin/bash
# Starts Tributary in the container with a JVM sized for it (see docs/OPERATIONS.md, "Container memory").
#
# With a cgroup memory limit, JAVA_TOOL_OPTIONS' -XX:MaxRAMPercentage takes its share of that limit.
# Without one (docker run without --memory, on a large host), the JVM would size itself from the
# host's memory; here it is sized as if the container had TRIBUTARY_MEMORY_WITHOUT_LIMIT (default 2g)
# instead, so that a small service stays small. An explicit -Xmx, -XX:MaxHeapSize or -XX:MaxRAM in
# JAVA_TOOL_OPTIONS or TRIBUTARY_JAVA_OPTS always wins.
set -euo pipefail

cgroup="${TRIBUTARY_CGROUP_ROOT:-/sys/fs/cgroup}"
limit=""
if [ -r "$cgroup/memory.max" ]; then
  limit="$(cat "$cgroup/memory.max")"                   # cgroup v2: "max" = no limit
elif [ -r "$cgroup/memory/memory.limit_in_bytes" ]; then
  limit="$(cat "$cgroup/memory/memory.limit_in_bytes")" # cgroup v1: about 2^63 = no limit
fi

jvm=()
if [ -n "${TRIBUTARY_JAVA_OPTS:-}" ]; then
  read -r -a jvm <<< "$TRIBUTARY_JAVA_OPTS"
fi
if [ -z "$limit" ] || [ "$limit" = "max" ] || [ "${#limit}" -ge 19 ]; then
  case " ${JAVA_TOOL_OPTIONS:-} ${TRIBUTARY_JAVA_OPTS:-} " in
    *" -Xmx"* | *" -XX:MaxHeapSize="* | *" -XX:MaxRAM="*) ;;
    *) jvm+=("-XX:MaxRAM=${TRIBUTARY_MEMORY_WITHOUT_LIMIT:-2g}") ;;
  esac
fi

exec "${TRIBUTARY_JAVA:-java}" "${jvm[@]}" org.springframework.boot.loader.launch.JarLauncher "$@"
