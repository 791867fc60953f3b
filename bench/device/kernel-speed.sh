#!/usr/bin/env bash
# On the GPU machine, in one job: the indexer, top-k and attention-chain tests on the cuda device
# (every kernel against its Java reference, -Dkvflow.test.device=cuda), then the kernel-speed
# benchmarks with their torch baselines on the same shapes in the same run (KernelSpeedBench and
# torch_kernels.py: indexer scores, the whole attention step; TopKBench and torch_topk.py), one
# layer of a 128K-token CP8 prefill stage by stage (GpuPrefillBench, for the shared-KV overhead
# against this attention step and the full view against cuMemcpyDtoD), and
# bench/results/kernel-speed.json from the figures.
# Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of
# bench/device/pack.sh in $KVFLOW_TEST_JARS (default .device). Writes to $OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  cuda_tests kernels.nsa.IndexScorerTest kernels.nsa.TopKRowsTest kernels.nsa.AttentionChainTest kernels.nsa.SparseAttentionTest \
    cuda.graph.CudaTwinSourceTest cuda.graph.CudaTaskGraphGpuTest
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
JAVA_OPTS="-Xmx24g $crash" "$device/run.sh" org.kvflow.bench.GpuPrefillBench 8 131072 8192 128 2>&1 | grep '^{' > "$out/pipeline.jsonl"
grep -E '"name":"(totals|materialize_full_view|memcpy_dtod_same_bytes)"' "$out/pipeline.jsonl"
python3 "$here/kernel_speed_record.py" "$out" "bench/device/kernel-speed.sh" | tee "$out/kernel-speed.json"
