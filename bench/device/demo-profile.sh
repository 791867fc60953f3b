#!/usr/bin/env bash
# On the GPU machine: where `kvflow demo` spends its time on each backend (BACKENDS, default
# "java cuda"): one run per backend under Java Flight Recorder, then the recording's hottest
# methods and its busiest stacks (jfr view). Writes $OUT/profile-BACKEND.txt and the recordings, $OUT/demo-BACKEND.jfr. Expects the unpacked
# runtime at $KVFLOW_DEVICE (default /tmp/d/device).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
for b in ${BACKENDS:-java cuda}; do
  rec=/tmp/demo-$b.jfr
  JAVA_OPTS="-Xmx24g -XX:StartFlightRecording=filename=$rec,settings=profile" "$device/run.sh" org.kvflow.samples.cli.KvflowCli \
    demo --backend "$b" --json 2>/dev/null | tail -1 > "$out/profile-$b.txt"
  { "$device/jre/bin/jfr" view --width 200 hot-methods "$rec"; "$device/jre/bin/jfr" view --width 200 --cell-height 12 allocation-by-site "$rec" | head -30; } \
    >> "$out/profile-$b.txt" 2>&1 || true
  cp "$rec" "$out/" || true
  head -3 "$out/profile-$b.txt"
done
