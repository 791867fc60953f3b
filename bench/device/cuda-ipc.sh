#!/usr/bin/env bash
# On the GPU machine, in one job: the GPU checksum and cuda-ipc tests (CudaPageMemoryGpuTest,
# CudaIpcTransferGpuTest: pages copied GPU to GPU into a decode process's pool equal an in-process
# receiver's, a killed decode process fails the send typed), `kvflow demo --backend cuda --transfer
# cuda-ipc --json` (every request's decode KV against the replicated run), then CudaIpcTransferBench 2048 61 8 3:
# a 131,072-token CP8 request's pages at DeepSeek V3.2's fp8 widths from rank pools in GPU memory
# (each rank's pool in a page memory of its own, a stream each; and the same pages from pools that
# share one memory) to decode processes on this host by the cuda-ipc engine (decode pool in GPU
# memory) and by the tcp engine, against one cuMemcpyDtoD of the same bytes, in one run; writes $OUT/cuda-ipc.jsonl
# and $OUT/cuda-ipc.json (date, machine, command, figures) for bench/results/, with the checksum
# kernel's own figures (crc_kernel.cu: one rank's share checksummed, and copied while checksummed,
# beside cudaMemcpy of the same bytes). Expects the unpacked
# runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of bench/device/pack.sh in
# $KVFLOW_TEST_JARS (default .device). DECODE_GPU=1 (on a machine of two GPUs) puts the cuda-ipc
# decode pool on GPU 1, the prefill pools staying on GPU 0, and the baseline copies GPU 0 to GPU 1
# peer to peer; the GPUs' link (nvidia-smi topo -m) goes into $OUT/topo.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1 | tee "$out/gpu.txt"
decode_gpu=${DECODE_GPU:-0}
[ "$decode_gpu" = 0 ] || nvidia-smi topo -m | tee "$out/topo.txt"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  cuda_tests cuda.CudaPageMemoryGpuTest transport.cudaipc.CudaIpcTransferGpuTest
fi
nvcc -arch=sm_90 -O3 -o /tmp/crc_kernel "$here/crc_kernel.cu"
/tmp/crc_kernel 256 61 | tee "$out/crc-kernel.jsonl"
# the demo on cuda with the decode process's pool in GPU memory: every request's decode KV checked against the replicated run's
JAVA_OPTS="-Xmx24g $crash" "$device/run.sh" org.kvflow.samples.cli.KvflowCli demo --backend cuda --transfer cuda-ipc --json 2>/dev/null \
  | tail -1 > "$out/demo-cuda-ipc.json" || true
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k: d.get(k) for k in ('ok', 'checks', 'transfer')})" "$out/demo-cuda-ipc.json" || cat "$out/demo-cuda-ipc.json"
JAVA_OPTS="-Xmx24g $crash" "$device/run.sh" org.kvflow.bench.CudaIpcTransferBench "${PAGES:-2048}" "${LAYERS:-61}" 8 "${RUNS:-3}" "$decode_gpu" 2>&1 \
  | grep '^{' | tee "$out/cuda-ipc.jsonl"
python3 - "$out" "$(cat "$out/gpu.txt")" "$decode_gpu" <<'PY'
import json, sys, os, datetime, statistics
out, gpu, decode_gpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(os.path.join(out, "cuda-ipc.jsonl")) if l.startswith("{")]
def med(key):
    return round(statistics.median(r[key] for r in rows), 3)
figures = {k: med(k) for k in ("cuda_ipc_vs_dtod", "cuda_ipc_over_tcp_backend", "cuda_ipc_ms", "tcp_ms", "dtod_ms", "cuda_ipc_gbps",
                               "dtod_gbps", "cuda_ipc_one_stream_ms", "cuda_ipc_one_stream_vs_dtod", "cuda_ipc_ready_after_last_page_ms",
                               "tcp_ready_after_last_page_ms", "crc_one_rank_ms", "crc_one_rank_kernel_ms")}
figures.update({"bytes": rows[0]["bytes"], "runs": len(rows), "decode_gpu": decode_gpu})
kernel = json.loads(open(os.path.join(out, "crc-kernel.jsonl")).readline())
figures.update({"crc_kernel_one_rank_ms": kernel["crc_ms"], "crc_kernel_gbps": kernel["crc_gbps"], "copy_crc_kernel_ms": kernel["copy_crc_ms"],
                "memcpy_one_rank_ms": kernel["memcpy_dtod_ms"], "copy_crc_kernel_vs_memcpy": kernel["copy_crc_vs_memcpy"]})
command = "bench/device/cuda-ipc.sh" if decode_gpu == 0 else f"DECODE_GPU={decode_gpu} bench/device/cuda-ipc.sh"
record = {"date": datetime.date.today().isoformat(), "machine": gpu, "command": command, "figures": figures, "runs": rows,
          "crc_kernel": kernel}
json.dump(record, open(os.path.join(out, "cuda-ipc.json"), "w"), indent=2)
print(json.dumps(figures))
PY
