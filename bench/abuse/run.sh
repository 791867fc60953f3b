#!/usr/bin/env bash
# Replays every attack of the 2026-12-01 review, at the sizes given, against a live decode server
# (while an honest prefill pipeline streams to it) and against damaged journals; passes only if every
# attack is refused, every honest transfer verifies, and the server's heap is back where it started.
# CI runs the same tests at small sizes. Usage: bench/abuse/run.sh [honestRequests [floodConnections]]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
mvn -B -q install -DskipTests -pl core,tornado-kernels,journal,operators,dsl -am
mvn -B surefire:test -pl journal,dsl -Dtest='AbuseDrillTest,HostilePeerTest,JournalDamageTest' -Dsurefire.failIfNoSpecifiedTests=false \
  -Dkvflow.abuse.requests="${1:-200}" -Dkvflow.abuse.connections="${2:-300}" | grep -E "Tests run:|FAIL|BUILD"
