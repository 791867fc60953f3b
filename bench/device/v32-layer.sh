#!/usr/bin/env bash
# On the GPU machine, in one job: the DeepSeek V3.2 layer's golden test on the cuda device
# (-Dkvflow.test.device=cuda), the small-width weights and golden outputs written again by the torch
# reference (the committed ones must be what it writes), random weights at the real shapes, one
# layer's attention path for the last $QUERIES of $KEYS tokens on kvflow (V32LayerBench: keys
# stored in device memory, read in place) and on torch (v32_reference.py time, same weights and
# tokens) with kvflow's sampled outputs and top-k compared, and bench/results/real-layer.json.
# Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of
# bench/device/pack.sh in $KVFLOW_TEST_JARS (default .device). Writes to $OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
keys=${KEYS:-131072}
queries=${QUERIES:-8192}

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  cuda_tests deepseek.V32AgainstTorchTest
  mkdir -p "$out/v32"
  python3 "$here/v32_reference.py" weights "$out/v32/tiny.safetensors" --config tiny --layers 2 --vocab 512 --seed 2026
  python3 "$here/v32_reference.py" golden "$out/v32/tiny-golden.json" --weights "$out/v32/tiny.safetensors" --config tiny --layers 2 --tokens 40
fi
python3 "$here/v32_reference.py" weights /tmp/v32-real.safetensors --config real --layers 1 --vocab 4096 --seed 2026
JAVA_OPTS="-Xmx64g $crash" "$device/run.sh" org.kvflow.bench.V32LayerBench /tmp/v32-real.safetensors "$keys" "$queries" 8 "$out/kvflow-v32.json" 2>&1 \
  | grep -v "WARN\|^Dec \|INFO:" | tee "$out/kvflow.jsonl"
python3 "$here/v32_reference.py" time --weights /tmp/v32-real.safetensors --config real --keys "$keys" --queries "$queries" \
  --compare "$out/kvflow-v32.json" | tee "$out/torch.jsonl"
python3 "$here/v32_record.py" "$out" "KEYS=$keys QUERIES=$queries bash bench/device/v32-layer.sh" | tee "$out/real-layer.json"
