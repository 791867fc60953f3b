#!/usr/bin/env bash
# On the GPU machine, in one job: the kernel tests on NVIDIA OpenCL (JUnit console launcher), the
# demo with its kernels on Java and on OpenCL, then bench/device/kernels.sh (gather and top-k
# against torch). Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device) and, in
# $KVFLOW_TEST_JARS (default .device), the test jars: kernels-tests.jar, dsl-tests.jar,
# junit-platform-console-standalone, assertj-core, byte-buddy, reactor-test. Writes to $OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
classes=(kernels.api.DevicesTest kernels.api.ExecutionPlanTest kernels.gather.PageGatherTest kernels.nsa.GrowingBuffersTest
  kernels.nsa.IndexScorerTest kernels.nsa.SparseAttentionTest kernels.nsa.SyntheticKeysTest kernels.nsa.TopKRowsTest
  kernels.nsa.SyntheticRowsTest kernels.quant.QuantKernelsTest dsl.OpenClAttentionTest)
selectors=()
for c in "${classes[@]}"; do selectors+=(--select-class "org.kvflow.$c"); done
# the jlink'd JRE has no zipfs: select classes, not packages; run from /tmp so nothing lands in the checkout
# a JVM that crashes leaves its report in $out, so it comes back
(cd /tmp && "$device/jre/bin/java" @"$device/jvm.args" -Xmx16g "$crash" -cp "$device/lib/*:$jars/*" \
  org.junit.platform.console.ConsoleLauncher execute "${selectors[@]}" --details=tree --disable-banner) 2>&1 \
  | grep -v "WARNING\|^Dec \|INFO:" > "$out/tests.txt" || true
tail -15 "$out/tests.txt"
for b in java opencl; do
  JAVA_OPTS="-Xmx8g $crash" "$device/run.sh" org.kvflow.samples.cli.KvflowCli demo --backend "$b" 2>&1 | grep -v "WARN\|^Dec " \
    | tee -a "$out/demo.txt" || echo "demo --backend $b failed" | tee -a "$out/demo.txt"
done
"$here/kernels.sh" opencl "${1:-3}" 2>&1 | grep -v "WARN\|^Dec " | tee "$out/bench.txt"
