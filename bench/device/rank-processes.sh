#!/usr/bin/env bash
# On the GPU machine: CP ranks as processes. First the rank-process GPU tests (RankProcessesGpuTest:
# three rank JVMs export their device pools by CUDA IPC, the coordinator gathers a view from them
# in place, a killed rank is named and never read; RankProcessPipelineGpuTest and the DSL's
# RankProcessFlowGpuTest: the whole pipeline on rank processes' pools decodes what it decodes on
# pools of its own and on the replicated baseline, and attention read in place through the ranks'
# virtual view gives the gathered view's outputs exactly), then RankProcessBench 8 131072 61 (eight rank
# processes, DeepSeek V3.2 fp8, page 64, pools shareable: the full view gathered from their pools
# against eight pools of the coordinator's own and one cuMemcpyDtoD, same run; then the attention
# step reading the keys through one virtual view of the eight pools against the gathered view), then
# GpuPrefillBench 8 131072 8192 128 twice, owners' pools in this process and in eight rank processes
# (the chunk-by-chunk prefill-step overhead of shared KV, both layouts in one run). Writes $OUT/rank-processes.jsonl and
# $OUT/rank-processes.json (date, machine, command, figures) for bench/results/. Expects the unpacked
# runtime at $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of pack.sh in $KVFLOW_TEST_JARS.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
(cd /tmp && "$device/jre/bin/java" @"$device/jvm.args" -Xmx4g -cp "$device/lib/*:$jars/*" org.junit.platform.console.ConsoleLauncher execute \
  --select-class org.kvflow.ranks.RankProcessesGpuTest --select-class org.kvflow.ranks.RankProcessPipelineGpuTest \
  --select-class org.kvflow.dsl.RankProcessFlowGpuTest --details=tree --disable-banner) 2>&1 | grep -v "WARNING\|^Dec \|INFO:" \
  > "$out/rank-processes-tests.txt" || true
grep -E "tests (successful|failed)|✘" "$out/rank-processes-tests.txt" || echo "rank-processes: the GPU test printed no summary"
JAVA_OPTS="-Xmx40g" "$device/run.sh" org.kvflow.bench.RankProcessBench 8 131072 61 shared 2>&1 | grep '^{' | tee "$out/rank-processes.jsonl"
for owners in in-process processes; do
  JAVA_OPTS="-Xmx24g" "$device/run.sh" org.kvflow.bench.GpuPrefillBench 8 131072 8192 128 "$owners" 2>&1 | grep '^{' > "$out/prefill-$owners.jsonl"
  grep -E '"(setup|totals)"' "$out/prefill-$owners.jsonl"
done
python3 - "$out" "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)" <<'PY'
import json, sys, os, datetime
out, gpu = sys.argv[1], sys.argv[2]
def lines(name):
    return {r["name"]: r for r in (json.loads(l) for l in open(os.path.join(out, name)) if l.startswith("{"))}
rows = lines("rank-processes.jsonl")
chunked = {owners: lines("prefill-" + owners + ".jsonl")["totals"] for owners in ("in-process", "processes")}
dtod = rows["memcpy_dtod_same_bytes"]["median_ms"]
figures = {
    "materialize_vs_dtod": round(dtod / rows["materialize_from_rank_processes"]["median_ms"], 3),
    "materialize_checked_vs_dtod": round(dtod / rows["materialize_from_rank_processes_checked"]["median_ms"], 3),
    "materialize_new_lists_vs_dtod": round(dtod / rows["materialize_from_rank_processes_new_lists"]["median_ms"], 3),
    "capacity_ratio_cp8": round(rows["capacity"]["ratio"], 5),
}
if "attention_in_place" in rows:
    figures["overhead_in_place_128k_cp8"] = round(rows["attention_in_place"]["overhead_in_place"], 5)
record = {"date": datetime.date.today().isoformat(), "machine": gpu + "; 16 host cores", "command": "bench/device/rank-processes.sh",
          "figures": figures,
          "details": {"in_process_pools_vs_dtod": round(dtod / rows["materialize_from_in_process_pools"]["median_ms"], 3),
                      "step_overhead": rows.get("step_overhead"),
                      "chunked_step_overhead": {o: t["shared_kv_overhead"] for o, t in chunked.items()},
                      "chunked_totals": chunked, "rows": rows}}
json.dump(record, open(os.path.join(out, "rank-processes.json"), "w"), indent=2)
print(json.dumps(record["figures"]), json.dumps(record["details"]["in_process_pools_vs_dtod"]), json.dumps(record["details"]["chunked_step_overhead"]))
PY
