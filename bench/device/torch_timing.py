"""Shared timing for the torch baselines: CUDA events, warm-ups, the median, one JSON line."""
import json

import torch


def timed(name, bytes_moved, fn, iterations=20, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    median = times[len(times) // 2]
    print(json.dumps({"name": name, "bytes": bytes_moved, "median_ms": round(median, 4),
                      "gbps": round(bytes_moved / (median * 1e6), 1)}), flush=True)
