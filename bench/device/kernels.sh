#!/usr/bin/env bash
# On the GPU machine: the OpenCL (Aparapi) page-gather and top-k benchmarks and their torch
# baselines (index_select / copy_ of the same pages, topk of the same scores) in one run.
# Expects the unpacked device runtime at $KVFLOW_DEVICE (default /tmp/d/device), points the OpenCL
# loader at NVIDIA's ICD, writes to $OUT (or ./bench-out).
# Usage: bench/device/kernels.sh [device-selector [chunks [pagesPerChunk]]]
# Top-k shapes (rows nk k, ';'-separated) come from $TOPK_SHAPES.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
device=${KVFLOW_DEVICE:-/tmp/d/device}
out=${OUT:-bench-out}
mkdir -p "$out" /tmp/icd
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
selector=${1:-opencl}
chunks=${2:-3}
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv,noheader | tee "$out/gpu.txt"
JAVA_OPTS=${JAVA_OPTS:--Xmx40g} "$device/run.sh" org.kvflow.bench.KernelGatherBench "$selector" "$chunks" ${3:+"$3"} | tee "$out/kernels.jsonl"
per_chunk=${3:-$((2147483631 / 8 / 5248))}
python3 "$here/torch_gather.py" "$chunks" "$per_chunk" | tee "$out/torch-gather.jsonl"
IFS=';' read -ra shapes <<< "${TOPK_SHAPES:-1024 65536 2048;128 131072 2048}"
for shape in "${shapes[@]}"; do
  # shellcheck disable=SC2086 # a shape is three numbers
  JAVA_OPTS=${JAVA_OPTS:--Xmx40g} "$device/run.sh" org.kvflow.bench.TopKBench "$selector" $shape | tee -a "$out/topk.jsonl"
  # shellcheck disable=SC2086
  python3 "$here/torch_topk.py" $shape | tee -a "$out/torch-topk.jsonl"
done
