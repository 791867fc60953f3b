#!/usr/bin/env bash
# On the GPU machine: `kvflow demo --backend cuda --transfer cuda-ipc --json` $RUNS times (default 5)
# in a row, to tell whether the demo's JVM ever crashes (D51 records unexplained crashes here).
# Each run's whole output (standard output and error) and exit code are kept; a crashing JVM writes
# its report ($crash for the demo's JVM; a decode child's lands in the working folder, /tmp/dr).
# Writes $OUT/demo-repeat.txt (one line a run: exit code, ok, checks, whether a fatal-error banner
# was printed) and $OUT/demo-repeat-logs.tar.gz (the logs and any hs_err files).
# Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
logs=/tmp/dr
mkdir -p "$logs"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/demo-repeat.txt"
for i in $(seq "${RUNS:-5}"); do
  rc=0
  (cd "$logs" && JAVA_OPTS="-Xmx24g -XX:ErrorFile=$logs/hs_err_%p.log" "$device/run.sh" org.kvflow.samples.cli.KvflowCli demo \
      --backend "${BACKEND:-cuda}" --transfer "${TRANSFER:-cuda-ipc}" --json > "$logs/run-$i.out" 2> "$logs/run-$i.err") || rc=$?
  summary=$(grep '^{' "$logs/run-$i.out" | tail -1 | python3 -c "import json,sys; d=json.load(sys.stdin); print('ok', d.get('ok'), 'checks', d.get('checksPassed'), 'of', d.get('requests'), 'seconds', d.get('seconds'), 'first failures', d.get('firstFailures', []))" 2>/dev/null || echo "no report")
  banner=$(cat "$logs/run-$i.out" "$logs/run-$i.err" | grep -c "A fatal error has been detected" || true)
  echo "run $i: exit $rc, $summary, fatal-error banners $banner, last line: $(tail -1 "$logs/run-$i.out" | cut -c1-80)" | tee -a "$out/demo-repeat.txt"
done
ls "$logs"/hs_err_* "$logs"/core* 2>/dev/null | tee -a "$out/demo-repeat.txt" || echo "no crash reports" | tee -a "$out/demo-repeat.txt"
tar -czf "$out/demo-repeat-logs.tar.gz" -C "$logs" .
