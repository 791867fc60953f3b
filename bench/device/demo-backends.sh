#!/usr/bin/env bash
# On the GPU machine: `kvflow demo --json` with every backend, one after another, in one job:
# java (kernels and pools on the host), cuda (kernels on the GPU, rank pools and views in its
# memory), opencl (kernels on the GPU through OpenCL, pools on the host) and auto; each run's
# shared-KV time as the demo measures it and its 200 decode-KV checks. Writes $OUT/demo-*.json and
# $OUT/demo-backends.json (date, machine, command, figures) for bench/results/.
# Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
gpu=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)
for round in 1 2; do
  for b in ${BACKENDS:-java cuda opencl}; do
    JAVA_OPTS="-Xmx24g" "$device/run.sh" org.kvflow.samples.cli.KvflowCli demo --backend "$b" --json 2>/dev/null \
      | tail -1 > "$out/demo-$b-$round.json" || echo '{"ok":false}' > "$out/demo-$b-$round.json"
    cat "$out/demo-$b-$round.json"; echo
  done
done
python3 - "$out" "$gpu" <<'PY'
import json, sys, glob, os, datetime
out, gpu = sys.argv[1], sys.argv[2]
runs = {}
for p in sorted(glob.glob(os.path.join(out, "demo-*-*.json"))):
    name = os.path.basename(p)[5:-5]
    if name == "backends":
        continue
    backend, rnd = name.rsplit("-", 1)
    with open(p) as f:
        d = json.load(f)
    runs.setdefault(backend, []).append({"round": int(rnd), "seconds": d.get("seconds"), "tokens": d.get("tokens"),
                                         "checksPassed": d.get("checksPassed"), "requests": d.get("requests"),
                                         "kernelDevice": d.get("kernelDevice"), "ok": d.get("ok")})
best = {b: min(r["seconds"] for r in rs if r["seconds"]) for b, rs in runs.items() if any(r["seconds"] for r in rs)}
figures = {"runs": runs, "best_seconds": best}
if "java" in best:
    for b in best:
        if b != "java":
            figures[f"{b}_speedup_vs_java"] = round(best["java"] / best[b], 3)
record = {"date": datetime.date.today().isoformat(), "machine": gpu + "; 16 host cores",
          "command": "bench/device/demo-backends.sh", "figures": figures}
with open(os.path.join(out, "demo-backends.json"), "w") as f:
    json.dump(record, f, indent=2)
print(json.dumps(record, indent=2))
PY
