#!/usr/bin/env bash
# On the GPU machine, in one job: the kernel tests on the cuda task-graph device (every kernel
# against its Java reference, -Dkvflow.test.device=cuda) and the cuda-only tests, then the
# benchmarks of the cuda device with their baselines in the same run (CudaTaskGraphBench: first
# executes, gather vs cuMemcpyDtoD, the attention chain on cuda and on OpenCL; TopKBench and
# torch.topk on the same shapes), the demo on java, opencl and auto, and
# bench/results/cuda-taskgraph.json from the figures.
# Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of
# bench/device/pack.sh in $KVFLOW_TEST_JARS (default .device). Writes to $OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  cuda_tests kernels.api.DevicesTest kernels.api.ExecutionPlanTest kernels.gather.PageGatherTest kernels.nsa.IndexScorerTest \
    kernels.nsa.SparseAttentionTest kernels.nsa.SyntheticKeysTest kernels.nsa.TopKRowsTest kernels.nsa.SyntheticRowsTest \
    kernels.nsa.AttentionChainTest kernels.quant.QuantKernelsTest cuda.graph.CudaTwinSourceTest cuda.graph.CudaTaskGraphGpuTest \
    cuda.CudaPageMemoryGpuTest
fi

run() { JAVA_OPTS="-Xmx24g $crash" "$device/run.sh" "$@" 2>&1 | grep -v "WARN\|^Dec \|INFO:"; }
run org.kvflow.bench.CudaTaskGraphBench "${GATHER_CHUNKS:-2}" "${CHAIN_QUERIES:-128}" "${CHAIN_KEYS:-65536}" | tee "$out/taskgraph.jsonl"
for shape in "1024 65536 2048" "16 131072 2048"; do
  # shellcheck disable=SC2086 # a shape is three numbers
  run org.kvflow.bench.TopKBench cuda $shape | tee -a "$out/topk.jsonl"
  # shellcheck disable=SC2086
  python3 "$here/torch_topk.py" $shape | tee -a "$out/torch-topk.jsonl"
done
# the demo with its kernels on Java, on OpenCL and on auto (the cuda device here); pools stay host memory
for b in java opencl auto; do
  t0=$(date +%s%N)
  run org.kvflow.samples.cli.KvflowCli demo --backend "$b" | tee -a "$out/demo.txt" || echo "demo --backend $b failed" | tee -a "$out/demo.txt"
  echo "{\"name\":\"demo\",\"backend\":\"$b\",\"wall_s\":$(( ($(date +%s%N) - t0) / 1000000 ))e-3}" | tee -a "$out/demo.jsonl"
done
python3 "$here/taskgraph_record.py" "$out" "bench/device/cuda-taskgraph.sh" | tee "$out/cuda-taskgraph.json"
