#!/usr/bin/env bash
# On the GPU machine: the page-memory layer's GPU tests. PageStore on the cuda page memory against
# the heap store (CudaPageStoreGpuTest), the cuda page memory's copies (CudaPageMemoryGpuTest), and
# rows stored and keys read in place (CudaInPlaceRowsGpuTest), the pipeline with every rank's pools in
# device memory against the same run on the heap
# (DeviceResidentPoolsGpuTest), device pages and memory coming back on complete, error and cancel
# and pools too large for the device refused (DevicePipelineLifecycleGpuTest), and the shared ==
# replicated proof and the HiCache backup through pinned staging with pools on cuda
# (SharedEqualsReplicatedTest, HiCacheBackupTest, -Dkvflow.test.device=cuda). Expects the unpacked runtime at $KVFLOW_DEVICE (default
# /tmp/d/device) and the test jars of bench/device/pack.sh in $KVFLOW_TEST_JARS (default .device).
# Writes $OUT/page-store-tests.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
selectors=()
for c in cuda.CudaPageStoreGpuTest cuda.CudaPageMemoryGpuTest cuda.CudaInPlaceRowsGpuTest operators.pipeline.DeviceResidentPoolsGpuTest \
    operators.pipeline.DevicePipelineLifecycleGpuTest operators.pipeline.SharedEqualsReplicatedTest operators.backup.HiCacheBackupTest \
    operators.backup.JournalPrefixRestoreTest dsl.WarmStartTest; do
  selectors+=(--select-class "org.kvflow.$c")
done
(cd /tmp && "$device/jre/bin/java" @"$device/jvm.args" -Xmx16g -Dkvflow.test.device=cuda "-XX:ErrorFile=$out/hs_err_%p.log" -cp "$device/lib/*:$jars/*" \
  org.junit.platform.console.ConsoleLauncher execute "${selectors[@]}" --details=tree --disable-banner) 2>&1 \
  | grep -v "WARNING\|^Dec \|INFO:" > "$out/page-store-tests.txt" || true
tail -25 "$out/page-store-tests.txt"
