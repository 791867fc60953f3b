"""torch baselines for bench/device/kernels.sh: the same page gather as KernelGatherBench.

One [chunks * pages_per_chunk, 5,248] int64 tensor (41,984 B MLA fp8 pages at page size 64),
gathered by a random permutation with index_select, and a contiguous copy_ of the same bytes.
CUDA events, median of 30 after 3 warm-ups. Prints one JSON object per line.
"""
import sys

import torch

from torch_timing import timed

WORDS = 41984 // 8
chunks = int(sys.argv[1]) if len(sys.argv) > 1 else 2
per_chunk = int(sys.argv[2]) if len(sys.argv) > 2 else (2**31 - 1 - 16) // (WORDS * 8)
pages = chunks * per_chunk
dev = torch.device("cuda")
pool = torch.randint(0, 2**62, (pages, WORDS), dtype=torch.int64, device=dev)
perm = torch.randperm(pages, generator=torch.Generator().manual_seed(1)).to(dev)
view = torch.empty_like(pool)
moved = 2 * pool.numel() * 8

timed("torch_index_select_mla", moved, iterations=30, fn=lambda: torch.index_select(pool, 0, perm, out=view))
timed("torch_copy_same_bytes", moved, iterations=30, fn=lambda: view.copy_(pool))
