#!/usr/bin/env bash
# On the GPU machine: the full view as the pipeline gathers it from CP8 owner PageStores in device
# memory (ViewGatherBench: 61 layers, 131,072 tokens, page 64) against one cuMemcpyDtoD of the same
# bytes, and the page-major owner gather of RankLayoutBench beside it, in one job; first the page
# layer's GPU tests (page-store.sh). Writes $OUT/view-gather.jsonl and $OUT/view-gather.json
# (date, machine, command, figures) for bench/results/. Expects the unpacked runtime at
# $KVFLOW_DEVICE (default /tmp/d/device) and the test jars of pack.sh in $KVFLOW_TEST_JARS.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
OUT="$out" bash "$here/page-store.sh" | tail -4
run() { JAVA_OPTS="-Xmx16g" "$device/run.sh" "$@" 2>&1 | grep '^{'; }
run org.kvflow.bench.ViewGatherBench 8 131072 61 | tee "$out/view-gather.jsonl"
run org.kvflow.bench.RankLayoutBench 8 131072 | tee -a "$out/view-gather.jsonl"
python3 - "$out" "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)" <<'PY'
import json, sys, os, datetime
out, gpu = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(os.path.join(out, "view-gather.jsonl")) if l.startswith("{")]
named = {r["name"]: r for r in rows if "name" in r and "gbps" in r}
figures = {name: {"median_ms": r["median_ms"], "gbps": r["gbps"]} for name, r in named.items()}
dtod = named["memcpy_dtod_same_bytes"]["median_ms"]
figures["view_from_owner_stores_vs_dtod"] = round(dtod / named["view_from_owner_stores"]["median_ms"], 3)
if "shared_materialize_from_owners" in named:
    figures["page_major_owner_gather_vs_dtod"] = round(dtod / named["shared_materialize_from_owners"]["median_ms"], 3)
record = {"date": datetime.date.today().isoformat(), "machine": gpu, "command": "bench/device/view-gather.sh", "figures": figures,
          "note": "both DtoD rows are one cuMemcpyDtoD of the view's bytes; bytes count read + write"}
json.dump(record, open(os.path.join(out, "view-gather.json"), "w"), indent=2)
print(json.dumps(record, indent=2))
PY
