#!/usr/bin/env bash
# On the GPU machine, in one job, what the prebuilt indexer-score kernel changes, the short form of
# kernel-speed.sh: the kernel alone (scores_variants.cu: its error against a double reference and
# its time at several key spans a block, for the shapes of kernel-speed.sh and a ragged one), the
# indexer and attention-chain tests on the cuda device, KernelSpeedBench's scores beside torch's
# matmul on the same shapes and the attention step (batches of 512) beside torch's, and
# $OUT/kernel-speed.json from those figures (no top-k or prefill bench: see kernel-speed.sh).
# Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of
# bench/device/pack.sh in $KVFLOW_TEST_JARS (default .device). Writes to $OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
nvcc -arch=sm_90 -O3 -o /tmp/scores_variants "$here/scores_variants.cu"
cuobjdump --dump-sass /tmp/scores_variants | awk '/Function : index_scores_d8/{f=1} /Function : index_scores_d7/{f=0} f' \
  | grep -oE "(HMMA|F2FP|LDG|STG)[.A-Z0-9_]*" | sort | uniq -c
for shape in "128 65536" "8192 131072" "1000 3001 48"; do
  # shellcheck disable=SC2086 # a shape is numbers
  /tmp/scores_variants $shape | tee -a "$out/variants.jsonl"
done
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  cuda_tests kernels.nsa.IndexScorerTest kernels.nsa.AttentionChainTest
fi
for shape in "128 65536" "8192 131072"; do
  # shellcheck disable=SC2086
  JAVA_OPTS="-Xmx48g $crash" "$device/run.sh" org.kvflow.bench.KernelSpeedBench scores $shape 2>&1 | grep -v "WARN\|^Dec \|INFO:" | tee -a "$out/kvflow.jsonl"
  # shellcheck disable=SC2086
  python3 "$here/torch_kernels.py" scores $shape | tee -a "$out/torch.jsonl"
done
JAVA_OPTS="-Xmx48g $crash" "$device/run.sh" org.kvflow.bench.KernelSpeedBench step 8192 131072 512 2>&1 | grep -v "WARN\|^Dec \|INFO:" | tee -a "$out/kvflow.jsonl"
python3 "$here/torch_kernels.py" step 8192 131072 512 | tee -a "$out/torch.jsonl"
python3 "$here/kernel_speed_record.py" "$out" "bench/device/index-scores.sh" | tee "$out/kernel-speed.json"
