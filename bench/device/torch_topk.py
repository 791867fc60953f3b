"""torch baselines for bench/device/kernels.sh: top-k of the same shape as TopKBench.

[rows, nk] Gaussian fp32 scores on the GPU, top k per row: torch.topk unsorted (the cheapest
torch call giving the same set), sorted, and unsorted followed by sorting the indices (the same
output as kvflow's: ascending positions). CUDA events, median of 20 after 3 warm-ups.
"""
import sys

import torch

from torch_timing import timed

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
nk = int(sys.argv[2]) if len(sys.argv) > 2 else 65536
k = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
scores = torch.randn(rows, nk, device="cuda", generator=torch.Generator(device="cuda").manual_seed(7))
read = scores.numel() * 4

timed(f"torch_topk_unsorted_{rows}x{nk}_k{k}", read, lambda: torch.topk(scores, k, dim=1, sorted=False))
timed(f"torch_topk_sorted_{rows}x{nk}_k{k}", read, lambda: torch.topk(scores, k, dim=1, sorted=True))
timed(f"torch_topk_then_sort_indices_{rows}x{nk}_k{k}", read,
      lambda: torch.topk(scores, k, dim=1, sorted=False).indices.sort(dim=1))
