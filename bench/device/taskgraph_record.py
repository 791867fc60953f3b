"""bench/results/cuda-taskgraph.json from one run of bench/device/cuda-taskgraph.sh: the figures
the cuda task-graph issue names, each one number from that run. Usage: taskgraph_record.py OUT COMMAND"""
import datetime
import json
import pathlib
import sys

out = pathlib.Path(sys.argv[1])


def lines(name):
    path = out / name
    return [json.loads(l) for l in path.read_text().splitlines() if l.startswith("{")] if path.exists() else []


bench = lines("taskgraph.jsonl")
gather = next(r for r in bench if r["name"] == "gather_graph")
chain = {r["device"].split(" ")[0].split(":")[0]: r for r in bench if r["name"] == "chain"}
first = [r for r in bench if r["name"] == "first_execute" and not r["kernel"].startswith("context")]
topk = {(r["rows"], r["nk"]): r for r in lines("topk.jsonl") if r["name"] == "kvflow_topk"}
torch = {r["name"]: r for r in lines("torch-topk.jsonl")}


def topk_ratio(rows, nk, k=2048):
    return round(topk[(rows, nk)]["kernel_median_ms"] / torch[f"torch_topk_unsorted_{rows}x{nk}_k{k}"]["median_ms"], 3)


record = {
    "date": datetime.date.today().isoformat(),
    "machine": (out / "gpu.txt").read_text().strip(),
    "command": sys.argv[2],
    "figures": {
        "gather_graph_vs_dtod": round(gather["wall_vs_dtod"], 3),
        "topk_1024x65536_vs_torch": topk_ratio(1024, 65536),
        "topk_16x131072_vs_torch": topk_ratio(16, 131072),
        "chain_opencl_over_cuda": round(chain["opencl"]["median_ms"] / chain["cuda"]["median_ms"], 2),
        "chain_host_bytes": chain["cuda"]["bytes_to_device"] + chain["cuda"]["bytes_to_host"],
        "first_execute_ms_max": max(r["ms"] for r in first),
    },
}
print(json.dumps(record, indent=2))
