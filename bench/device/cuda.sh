#!/usr/bin/env bash
# On the GPU machine: the CUDA page-copy benchmark and its torch baselines in one run, then the
# report. Expects the unpacked device runtime at $KVFLOW_DEVICE (default /tmp/d/device) and writes
# to $OUT (or ./bench-out). Usage: bench/device/cuda.sh [poolPages viewPages hostPages]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
device=${KVFLOW_DEVICE:-/tmp/d/device}
out=${OUT:-bench-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv,noheader | tee "$out/gpu.txt"
"$device/run.sh" org.kvflow.bench.CudaCopyBench "$@" | tee "$out/cuda.jsonl"
python3 "$here/torch_copy.py" "$@" | tee "$out/torch.jsonl"
python3 "$here/report.py" "$out/cuda.jsonl" "$out/torch.jsonl" | tee "$out/cuda-report.md"
