"""bench/results/real-layer.json from one run of bench/device/v32-layer.sh: one DeepSeek V3.2 layer's
attention path on kvflow (cuda) over torch on the same weights and tokens in the same run, how far
their outputs and top-k agree, and what shared KV adds for the chunk. Usage: v32_record.py OUT COMMAND"""
import datetime
import json
import pathlib
import sys

out = pathlib.Path(sys.argv[1])


def line(name, key):
    for l in (out / name).read_text().splitlines():
        if l.startswith("{") and json.loads(l).get("name") == key:
            return json.loads(l)
    raise SystemExit(f"no {key} line in {name}")


k = line("kvflow.jsonl", "kvflow_v32_step")
t = line("torch.jsonl", "torch_v32_step")
extra = max(0.0, k["write_shared_ms"] - k["write_replicated_ms"])
shape = f"{k['queries']}x{k['keys']}"
figures = {
    "v32_layer_vs_torch": round(k["attention_ms"] / t["ms"], 3),
    f"v32_attention_{shape}_ms": k["attention_ms"],
    f"v32_attention_{shape}_torch_ms": round(t["ms"], 2),
    "v32_chunk_rows_ms": k["write_chunk_rows_ms"],
    "shared_kv_overhead_real_layer_128k_cp8": round((k["materialize_ms"] + extra) / (k["attention_ms"] + k["write_chunk_rows_ms"]), 5),
    "shared_kv_overhead_vs_torch_step_128k_cp8": round((k["materialize_ms"] + extra) / t["ms"], 5),
    "materialize_ms": k["materialize_ms"],
    "extra_shared_write_ms": round(extra, 3),
    "v32_attention_torch_tf32_ms": round(t["ms_tf32"], 2),
    "v32_layer_vs_torch_tf32": round(k["attention_ms"] / t["ms_tf32"], 3),
    "max_abs_diff_attention_out": t.get("max_abs_diff_attention_out"),
    "max_abs_diff_given_kvflow_topk": t.get("max_abs_diff_given_kvflow_topk"),
    "max_rel_gap_of_swapped_keys": t.get("max_rel_gap_of_swapped_keys"),
    "compared_queries": t.get("compared_queries"),
    "max_abs_attention_out": t.get("max_abs_attention_out"),
    "topk_agreement": t.get("topk_agreement"),
}
record = {
    "date": datetime.date.today().isoformat(),
    "machine": (out / "gpu.txt").read_text().strip(),
    "command": sys.argv[2],
    "figures": figures,
}
print(json.dumps(record, indent=2))
