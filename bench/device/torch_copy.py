"""torch baselines for bench/device/cuda.sh: the same page copies as CudaCopyBench, same sizes.

Pages are rows of int64 tensors (41,984 B MLA fp8 page = 5,248 int64; 8,448 B indexer page = 1,056).
Timed with CUDA events, median of 20 after 3 warm-ups. Prints one JSON object per line.
"""
import sys

import torch

from torch_timing import timed

MLA, INDEX = 41984 // 8, 8448 // 8
pool_pages, view_pages, host_pages = (int(a) for a in (sys.argv[1:] or ["100000", "50000", "20000"]))


dev = torch.device("cuda")
g = torch.Generator(device="cpu").manual_seed(1)
mla = torch.randint(0, 2**62, (pool_pages, MLA), dtype=torch.int64, device=dev)
index = torch.randint(0, 2**62, (pool_pages, INDEX), dtype=torch.int64, device=dev)
src = torch.randperm(pool_pages, generator=g)[:view_pages].to(dev)
scattered = torch.randperm(pool_pages, generator=g)[:view_pages].to(dev)
mla_view = torch.empty((view_pages, MLA), dtype=torch.int64, device=dev)
index_view = torch.empty((view_pages, INDEX), dtype=torch.int64, device=dev)
view_bytes = view_pages * (MLA + INDEX) * 8


def gather_both():
    torch.index_select(mla, 0, src, out=mla_view)
    torch.index_select(index, 0, src, out=index_view)


def scatter_both():
    mla.index_copy_(0, scattered, mla_view)
    index.index_copy_(0, scattered, index_view)


timed("torch_index_select_mla_index", 2 * view_bytes, gather_both)
timed("torch_index_select_mla", 2 * view_pages * MLA * 8, lambda: torch.index_select(mla, 0, src, out=mla_view))
timed("torch_index_copy_mla_index", 2 * view_bytes, scatter_both)
flat_a = torch.empty(view_bytes // 8, dtype=torch.int64, device=dev)
flat_b = torch.empty_like(flat_a)
timed("torch_copy_same_bytes", 2 * view_bytes, lambda: flat_b.copy_(flat_a))
del flat_a, flat_b
host = torch.empty((host_pages, MLA), dtype=torch.int64).pin_memory()
dev_flat = torch.empty((host_pages, MLA), dtype=torch.int64, device=dev)
host_bytes = host_pages * MLA * 8
timed("torch_pinned_h2d_same_bytes", host_bytes, lambda: dev_flat.copy_(host, non_blocking=True))
timed("torch_pinned_d2h_same_bytes", host_bytes, lambda: host.copy_(dev_flat, non_blocking=True))
