#!/usr/bin/env bash
# On the GPU machine, in one job: the indexer, top-k and attention-chain tests on the cuda device
# (every kernel against its Java reference, -Dkvflow.test.device=cuda), then the kernel-speed
# benchmarks with their torch baselines on the same shapes in the same run (KernelSpeedBench and
# torch_kernels.py: indexer scores, the whole attention step; TopKBench and torch_topk.py), and
# bench/results/kernel-speed.json from the figures.
# Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of
# bench/device/pack.sh in $KVFLOW_TEST_JARS (default .device). Writes to $OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
crash="-XX:ErrorFile=$out/hs_err_%p.log"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  selectors=()
  for c in kernels.nsa.IndexScorerTest kernels.nsa.TopKRowsTest kernels.nsa.AttentionChainTest kernels.nsa.SparseAttentionTest \
    cuda.graph.CudaTwinSourceTest cuda.graph.CudaTaskGraphGpuTest; do selectors+=(--select-class "org.kvflow.$c"); done
  (cd /tmp && "$device/jre/bin/java" @"$device/jvm.args" -Xmx24g "$crash" -Dkvflow.test.device=cuda -cp "$device/lib/*:$jars/*" \
    org.junit.platform.console.ConsoleLauncher execute "${selectors[@]}" --details=tree --disable-banner) 2>&1 \
    | grep -v "WARNING\|^Dec \|INFO:" > "$out/tests.txt" || true
  grep -E "✘|MethodSource" "$out/tests.txt" | head -40 || true
  tail -12 "$out/tests.txt"
fi

run() { JAVA_OPTS="-Xmx48g $crash" "$device/run.sh" "$@" 2>&1 | grep -v "WARN\|^Dec \|INFO:"; }
: > "$out/kvflow.jsonl"
: > "$out/torch.jsonl"
for shape in "128 65536" "8192 131072"; do
  # shellcheck disable=SC2086 # a shape is numbers
  run org.kvflow.bench.KernelSpeedBench scores $shape | tee -a "$out/kvflow.jsonl"
  # shellcheck disable=SC2086
  python3 "$here/torch_kernels.py" scores $shape | tee -a "$out/torch.jsonl"
done
for shape in "1024 65536 2048" "16 131072 2048" "8192 131072 2048"; do
  # shellcheck disable=SC2086
  run org.kvflow.bench.TopKBench cuda $shape | tee -a "$out/kvflow.jsonl"
  # shellcheck disable=SC2086
  python3 "$here/torch_topk.py" $shape | tee -a "$out/torch.jsonl"
done
for batch in ${STEP_BATCHES:-512 128}; do
  run org.kvflow.bench.KernelSpeedBench step 8192 131072 "$batch" | tee -a "$out/kvflow.jsonl"
  python3 "$here/torch_kernels.py" step 8192 131072 "$batch" | tee -a "$out/torch.jsonl"
done
python3 "$here/kernel_speed_record.py" "$out" "bench/device/kernel-speed.sh" | tee "$out/kernel-speed.json"
