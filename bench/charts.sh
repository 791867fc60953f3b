#!/usr/bin/env bash
# Here: draws the charts of docs/benchmarks.md (docs/charts/*.png) from the committed records in
# bench/results/*.json with BenchCharts; measures nothing. Needs the bench module built (mvn install).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
java=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
"$java" -cp "$root/bench/target/benchmarks.jar" org.kvflow.bench.BenchCharts "$root/bench/results" "$root/docs/charts"
