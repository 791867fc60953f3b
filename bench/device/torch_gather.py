"""torch baselines for bench/device/kernels.sh: the same page gather as KernelGatherBench.

One [chunks * pages_per_chunk, 5,248] int64 tensor (41,984 B MLA fp8 pages at page size 64),
gathered by a random permutation with index_select, and a contiguous copy_ of the same bytes.
CUDA events, median of 30 after 3 warm-ups. Prints one JSON object per line.
"""
import json
import sys

import torch

WORDS = 41984 // 8
chunks = int(sys.argv[1]) if len(sys.argv) > 1 else 2
per_chunk = int(sys.argv[2]) if len(sys.argv) > 2 else (2**31 - 1 - 16) // (WORDS * 8)
pages = chunks * per_chunk
dev = torch.device("cuda")
pool = torch.randint(0, 2**62, (pages, WORDS), dtype=torch.int64, device=dev)
perm = torch.randperm(pages, generator=torch.Generator().manual_seed(1)).to(dev)
view = torch.empty_like(pool)
moved = 2 * pool.numel() * 8


def timed(name, fn):
    for _ in range(3):
        fn()
    times = []
    for _ in range(30):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    median = times[len(times) // 2]
    print(json.dumps({"name": name, "bytes": moved, "median_ms": round(median, 4), "gbps": round(moved / (median * 1e6), 1)}), flush=True)


timed("torch_index_select_mla", lambda: torch.index_select(pool, 0, perm, out=view))
timed("torch_copy_same_bytes", lambda: view.copy_(pool))
