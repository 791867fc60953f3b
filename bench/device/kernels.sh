#!/usr/bin/env bash
# On the GPU machine: the OpenCL (Aparapi) page-gather benchmark and torch's index_select of the
# same pages in one run. Expects the unpacked device runtime at $KVFLOW_DEVICE (default
# /tmp/d/device), points the OpenCL loader at NVIDIA's ICD, writes to $OUT (or ./bench-out).
# Usage: bench/device/kernels.sh [device-selector chunks pagesPerChunk]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
device=${KVFLOW_DEVICE:-/tmp/d/device}
out=${OUT:-bench-out}
mkdir -p "$out" /tmp/icd
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
selector=${1:-opencl}
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv,noheader | tee "$out/gpu.txt"
JAVA_OPTS=${JAVA_OPTS:--Xmx40g} "$device/run.sh" org.kvflow.bench.KernelGatherBench "$selector" "${@:2}" | tee "$out/kernels.jsonl"
python3 "$here/torch_gather.py" "${@:2}" | tee "$out/torch-gather.jsonl"
