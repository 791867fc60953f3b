#!/usr/bin/env bash
# On the GPU machine, in one job: the page layer's and the pipeline's GPU tests (page-store.sh),
# the prefill of one layer at real shapes stage by stage (GpuPrefillBench: DeepSeek V3.2 dims, fp8,
# page 64, CP8 owner pools on the one GPU, a 131,072-token request in chunks of 8,192), and the
# demo on java and on cuda (demo-backends.sh, two rounds each). Writes $OUT/gpu-pipeline.jsonl and
# $OUT/gpu-pipeline.json (date, machine, command, figures) for bench/results/. Expects the unpacked
# runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of pack.sh in $KVFLOW_TEST_JARS.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
# the tests and the demo write their own files to scratch folders; only their summaries come back
OUT=/tmp/gpu-tests bash "$here/page-store.sh" > /dev/null
cp /tmp/gpu-tests/page-store-tests.txt /tmp/gpu-tests/hs_err_*.log "$out/" 2>/dev/null || true
grep -E "tests (successful|failed|aborted|skipped)|MethodSource|✘" "$out/page-store-tests.txt" | head -40 || echo "gpu-pipeline: the GPU tests printed no summary"
JAVA_OPTS="-Xmx24g" "$device/run.sh" org.kvflow.bench.GpuPrefillBench 8 131072 8192 128 2>&1 | grep '^{' | tee "$out/gpu-pipeline.jsonl"
OUT=/tmp/gpu-demo BACKENDS="java cuda" bash "$here/demo-backends.sh" > /dev/null
cp /tmp/gpu-demo/demo-backends.json "$out/"
python3 - "$out" "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)" <<'PY'
import json, sys, os, datetime
out, gpu = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(os.path.join(out, "gpu-pipeline.jsonl")) if l.startswith("{")]
named = {r["name"]: r for r in rows if r.get("name") != "chunk"}
chunks = [r for r in rows if r.get("name") == "chunk"]
demo = json.load(open(os.path.join(out, "demo-backends.json")))["figures"]
totals = named["totals"]
figures = {
    "demo_java_over_cuda": round(demo["best_seconds"]["java"] / demo["best_seconds"]["cuda"], 3),
    "materialize_vs_dtod": round(named["memcpy_dtod_same_bytes"]["median_ms"] / named["materialize_full_view"]["median_ms"], 3),
    "materialize_checked_vs_dtod": round(named["memcpy_dtod_same_bytes"]["median_ms"] / named["materialize_full_view_checked"]["median_ms"], 3),
    "shared_kv_overhead_128k_cp8": round(totals["shared_kv_overhead"], 5),
    "host_bytes_write_to_attention": named["host_bytes"]["write_to_attention"],
}
details = {
    "totals_one_layer": totals,
    "last_chunk": chunks[-1],
    "materialize_full_view": named["materialize_full_view"],
    "materialize_kernel_only": named["materialize_kernel_only"],
    "materialize_full_view_checked": named["materialize_full_view_checked"],
    "memcpy_dtod_same_bytes": named["memcpy_dtod_same_bytes"],
    "host_bytes_by_stage": named["host_bytes"]["by_stage"],
    "demo_best_seconds": demo["best_seconds"],
    "check": named["check"],
}
record = {"date": datetime.date.today().isoformat(), "machine": gpu + "; 16 host cores", "command": "bench/device/gpu-pipeline.sh",
          "figures": figures, "details": details}
json.dump(record, open(os.path.join(out, "gpu-pipeline.json"), "w"), indent=2)
print(json.dumps(record, indent=2))
PY
