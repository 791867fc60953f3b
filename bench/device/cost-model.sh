#!/usr/bin/env bash
# On the GPU machine: what the trace's cost models (traffic/cost-models/) are fitted to. One layer of
# a 131,072-token prefill at DeepSeek V3.2 widths, CP8 owner pools on the one GPU, in 16 chunks of
# 8,192 (GpuPrefillBench), with the attention step run in blocks of 128 and of 512 queries. For each
# block size a chunk of n tokens with keys to L costs n·(a + b·L): a and b are fitted to the run's
# attention total and its last chunk; m (shared KV's full-view gather, per key and chunk) comes from
# the last chunk's gather and r (the replicated baseline's extra row writes, per token and rank) from
# the two write totals. Writes $OUT/prefill-b128.jsonl, $OUT/prefill-b512.jsonl, the model files
# h200-v32-attention-b128.json and h200-v32-attention-b512.json, and $OUT/cost-model.json (date,
# machine, command, figures) for bench/results/. Expects the unpacked runtime at $KVFLOW_DEVICE.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
for b in 128 512; do
  JAVA_OPTS="-Xmx24g" "$device/run.sh" org.kvflow.bench.GpuPrefillBench 8 131072 8192 "$b" 2>&1 | grep '^{' > "$out/prefill-b$b.jsonl"
done
python3 - "$out" "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)" <<'PY'
import json, os, sys, datetime
out, gpu = sys.argv[1], sys.argv[2]
n, chunks, tokens, cp = 8192, 16, 131072, 8
keys = sum(n * i for i in range(1, chunks + 1))  # keys the chunks' queries are scored against, summed
figures = {}
for b in (128, 512):
    rows = [json.loads(l) for l in open(os.path.join(out, "prefill-b%d.jsonl" % b))]
    total = next(r for r in rows if r["name"] == "totals")
    last = [r for r in rows if r["name"] == "chunk"][-1]
    # total = n·(chunks·a + b·keys), last = n·(a + b·tokens), seconds
    t, l = total["attention_ms"] / 1e3, last["attention_ms"] / 1e3
    slope = (t / n - chunks * l / n) / (keys - chunks * tokens)
    a = l / n - slope * tokens
    m = last["materialize_ms"] / 1e3 / tokens
    r = (total["write_replicated_ms"] - total["write_shared_ms"]) / 1e3 / cp / tokens
    figures.update({"attention_total_ms_b%d" % b: total["attention_ms"], "attention_last_chunk_ms_b%d" % b: last["attention_ms"],
                    "seconds_per_token_b%d" % b: a, "seconds_per_token_per_key_b%d" % b: slope,
                    "shared_seconds_per_key_b%d" % b: m, "replicated_seconds_per_token_b%d" % b: r})
    model = {"name": "h200-v32-attention-b%d" % b, "layers": 61, "chunkTokens": n, "secondsPerToken": float("%.5g" % a),
             "secondsPerTokenPerContextToken": float("%.5g" % slope), "sharedSecondsPerContextToken": float("%.4g" % m),
             "replicatedSecondsPerToken": float("%.5g" % r), "secondsPerChunk": 0, "hostSecondsPerToken": 8.74e-7}
    json.dump(model, open(os.path.join(out, "h200-v32-attention-b%d.json" % b), "w"), indent=2)
record = {"date": datetime.date.today().isoformat(), "machine": gpu + "; 16 host cores", "command": "bench/device/cost-model.sh",
          "figures": figures}
json.dump(record, open(os.path.join(out, "cost-model.json"), "w"), indent=2)
print(json.dumps(record, indent=2))
PY
