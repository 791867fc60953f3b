"""bench/results/kernel-speed.json from one run of bench/device/kernel-speed.sh: kvflow's time over
torch's on the same shapes in the same run (below 1: kvflow is faster), with the absolute figures
beside each ratio. Usage: kernel_speed_record.py OUT COMMAND"""
import datetime
import json
import pathlib
import sys

out = pathlib.Path(sys.argv[1])


def lines(name):
    path = out / name
    return [json.loads(l) for l in path.read_text().splitlines() if l.startswith("{")] if path.exists() else []


kvflow, torch = lines("kvflow.jsonl"), {r["name"]: r for r in lines("torch.jsonl")}
figures = {}
for r in kvflow:
    if r["name"] == "kvflow_scores":
        shape = f"{r['nq']}x{r['nk']}"
        base = torch[f"torch_scores_bf16_{shape}"]["median_ms"]
        figures[f"scores_{shape}_vs_torch"] = round(r["kernel_median_ms"] / base, 3)
        figures[f"scores_{shape}_ms"] = r["kernel_median_ms"]
        figures[f"scores_{shape}_tflops"] = r["tflops"]
        fp32_out = torch.get(f"torch_scores_bf16_fp32out_{shape}")
        if fp32_out and "median_ms" in fp32_out:
            figures[f"scores_{shape}_vs_torch_bf16_fp32_out"] = round(r["kernel_median_ms"] / fp32_out["median_ms"], 3)
        figures[f"scores_{shape}_torch_ms"] = base
        figures[f"scores_{shape}_vs_torch_fp32"] = round(r["kernel_median_ms"] / torch[f"torch_scores_fp32_{shape}"]["median_ms"], 3)
        figures[f"scores_{shape}_max_rel_err"] = r["max_rel_err"]
        if "kernel_median_before_warmup_ms" in r:  # the same run's figure as timed before the host's warm-up (D52)
            figures[f"scores_{shape}_before_host_warmup_ms"] = r["kernel_median_before_warmup_ms"]
            figures[f"scores_{shape}_before_host_warmup_vs_torch"] = round(r["kernel_median_before_warmup_ms"] / base, 3)
    elif r["name"] == "kvflow_topk":
        shape = f"{r['rows']}x{r['nk']}"
        base = torch[f"torch_topk_unsorted_{shape}_k{r['k']}"]["median_ms"]
        figures[f"topk_{shape}_vs_torch"] = round(r["kernel_median_ms"] / base, 3)
        figures[f"topk_{shape}_us"] = round(r["kernel_median_ms"] * 1000, 1)
        figures[f"topk_{shape}_torch_us"] = round(base * 1000, 1)
    elif r["name"] == "kvflow_step":
        base = torch[f"torch_step_{r['queries']}x{r['keys']}_b{r['batch']}"]["median_ms"]
        figures[f"attention_step_b{r['batch']}_vs_torch"] = round(r["ms"] / base, 3)
        figures[f"attention_step_b{r['batch']}_ms"] = r["ms"]
        figures[f"attention_step_b{r['batch']}_torch_ms"] = base
        if "kernels_ms" in r:  # the same step's device time by task; the rest of its wall time is host work
            figures[f"attention_step_b{r['batch']}_kernels_ms"] = r["kernels_ms"]
            for task, ms in r["tasks_ms"].items():
                figures[f"attention_step_b{r['batch']}_{task.split('.')[-1]}_ms"] = ms

pipeline = {r["name"]: r for r in lines("pipeline.jsonl") if r["name"] != "chunk"}
if "totals" in pipeline:
    t = pipeline["totals"]
    extra_write = max(0.0, t["write_shared_ms"] - t["write_replicated_ms"])
    figures["shared_kv_overhead_vs_fast_step_128k_cp8"] = round((t["materialize_ms"] + extra_write) / t["attention_ms"], 5)
    figures["attention_step_one_layer_128k_ms"] = t["attention_ms"]
    figures["materialize_vs_dtod"] = round(pipeline["memcpy_dtod_same_bytes"]["median_ms"] / pipeline["materialize_full_view"]["median_ms"], 3)
    figures["materialize_checked_vs_dtod"] = round(pipeline["memcpy_dtod_same_bytes"]["median_ms"] / pipeline["materialize_full_view_checked"]["median_ms"], 3)

record = {
    "date": datetime.date.today().isoformat(),
    "machine": (out / "gpu.txt").read_text().strip(),
    "command": sys.argv[2],
    "figures": figures,
}
print(json.dumps(record, indent=2))
